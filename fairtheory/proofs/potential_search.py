r"""Untrusted proposer of ``"pep-potential"`` certificates: bounds for every number of iterations (docs/proofs.md 8).

:func:`prove_potential` writes a statement - the potential family, its initial bound, the bound for every ``N`` -
and the multipliers of its three obligations (one step for every ``k >= 0``, initial, final), then asks the trusted
kernel :mod:`fairtheory_kernel.potential_kernel` to check them.  The multipliers are those of the classical
proofs, written as polynomials in ``(k, t)`` (derived in docs/proofs.md 8.3), or found by a float SDP search
(:mod:`fairtheory.proofs.potential_sdp`) and rationalised; nothing here is trusted.  Templates:

* ``gd``, ``potential="tight"`` (default for ``hi <= 13/10``): :func:`fairtheory.proofs.tight_gd.tight_gd_certificate`,
  Drori & Teboulle's exact ``L D0/(4 N h + 2)`` for every ``N`` (docs/tight_gd.md);
* ``gd``, ``potential="search"`` (default at one value ``h`` in ``(13/10, 2)``): the best certificate over
  :data:`GD_TEMPLATES` (quadratic potentials with coefficients polynomial in ``k``), bound ``L D0/(a + b N)``;
* ``gd`` with ``mu=`` / ``rate=`` / ``measure="distance"`` (one value ``h``): a linear rate ``rate^N``, the smallest
  rate by bisection on the SDP's feasibility, rationalised (the quadratics' factor first) and checked;

* ``gd``, ``potential="lyapunov2"`` (the default for ranges inside ``(0, 1]`` before issue 43): the step-``h`` form
  of PEPit's Lyapunov 2 (Taylor & Bach 2019, Thm. 3), ``phi_k = (2 h k + 1) L (f - f*) + h^2 k (k + 2) ||g_k||^2 +
  L^2 ||x_k - x*||^2``; bound ``3 L D0/(8 N h + 4)``, exactly 1.5 times Drori & Teboulle's worst case at every ``N``
  and ``h`` (at ``h = 1``: ``3 L D0/(8 N + 6)``);
* ``gd``, ``potential="classical"`` (default for ranges past ``13/10``):
  ``phi_k = (a0 + h k)(f(x_k) - f*) + (L/2)||x_k - x*||^2``; the one-step inequality holds for every ``h`` in
  ``[0, (1 + sqrt 5)/2]``; the bound is ``(a0 + 1) L D0 / (2 (a0 + h N))``.
  ``a0 = 1/2`` (default) makes it ``3 L D0/(4 N h + 2)``, exactly three times
  Drori & Teboulle's worst case at every ``N`` and ``h`` (the smallest uniform ratio in this family); ``a0 = 0`` is
  PEPit's Lyapunov 1 (``2 + 1/(N h)`` times the worst case);
* ``agm`` (step ``1/L``): PEPit's accelerated gradient potential ``lambda_k^2 (f(x_k) - f*) + (L/2)||z_k - x*||^2``
  with ``lambda_(k+1) = (1 + sqrt(4 lambda_k^2 + 1))/2``; bound ``2 L D0/(N + 1)^2``;
* ``local_gd`` (002 Alg. 1, 002 output, ``rho = 0``): ``phi = ||theta - theta*||^2`` decreasing by
  ``2 beta L (G(theta) - G*) / L`` per round for ``beta L <= 1``; bound ``L D0 / (2 beta L (T_N + 1))``.

Refusals (:class:`PotentialNotProved`) name the reason: for gd beyond ``h = 2`` no bound holds for every ``N``
(``f = L x^2/2`` gives ``(1 - h)^(2N) L D0 / 2``, unbounded); elsewhere the kernel's first failure and, from a
float SDP of the one-step inequality at sample ``(k, t)``, a point where the potential does not decrease.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fairtheory.algorithms.names import output_name, refuses_old_names
from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory_kernel import potential_kernel as K

__all__ = ["prove_potential", "PotentialCertificate", "PotentialNotProved", "potential_statement", "family_at"]


class PotentialNotProved(SolverError):
    """No certificate: ``.reason`` in words, ``.point`` the parameter value named (or ``None``), ``.kind`` why
    (``"diverging"``: an explicit instance violates every bound of the asked form - it is in the reason;
    ``"rate"``: the asked rate is below what the template reaches; ``"template"``: the template or the kernel's
    coefficient-wise decision is too weak; ``"range"``: not searched on a range), ``.hint`` what to try."""

    def __init__(self, message: str, *, point: Fraction | None = None, kind: str = "template", hint: str = "") -> None:
        full = message + (f". Try: {hint}" if hint else "")
        RuntimeError.__init__(self, full)
        self.what, self.solver, self.status = full, "prove_potential", "not proved"
        self.reason, self.point, self.kind, self.hint = full, point, kind, hint


def _q(x: Any, what: str) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, Fraction, str)):
        raise FairtheoryValueError(f"{what} must be an int, a Fraction or a rational string, got {type(x).__name__}")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError) as exc:
        raise FairtheoryValueError(f"{what} must be a rational number such as '1/2' or 3, got {x!r}") from exc


def _range(r: Any, what: str) -> tuple[Fraction, Fraction]:
    if isinstance(r, tuple) and len(r) == 2:
        lo, hi = _q(r[0], what), _q(r[1], what)
    else:
        lo = hi = _q(r, what)
    if not 0 <= lo <= hi <= K.MAX_PARAM:
        raise FairtheoryValueError(f"{what}: need 0 <= lo <= hi <= {K.MAX_PARAM}, got [{lo}, {hi}]")
    return lo, hi


def _s(x: Any) -> str:
    return str(Fraction(x))


def _kp(*coeffs: Any) -> list[list[str]]:
    """A k-polynomial in JSON: each argument the t-polynomial of ``k^m`` (a list) or a constant."""
    return [[_s(c) for c in a] if isinstance(a, (list, tuple)) else [_s(a)] for a in coeffs]




def potential_statement(method: str, **kw: Any) -> dict[str, Any]:
    """A ``"pep-potential"`` statement in JSON: :func:`fairtheory.proofs.certificate.potential_statement` (the one place
    statements are written)."""
    from fairtheory.proofs.certificate import potential_statement as make

    return make(method, **kw)


def family_at(statement: dict[str, Any], k: int) -> dict[str, Any]:
    """The ``pep-family`` statement (JSON) that a ``pep-potential`` statement implies at one ``N = k`` (gd) or
    ``T_N = k`` (local_gd): the same class, clients, method and range, the bound's k-polynomials evaluated at ``k``
    (for falsifiers and tests; :func:`fairtheory_kernel.check.implies` decides the implication)."""
    st = K.canonical(statement)
    if st.get("measure", "value") != "value" or st["class"]["mu"]:
        raise FairtheoryValueError("family_at: pep-family statements are for function values on convex functions "
                                   "(mu = 0) only")
    par = st["parameter"]
    num, den = (K._at(st["bound"][x], k) for x in ("num", "den"))
    num = num * K._fq(Fraction(st.get("rate", 1)) ** k)  # rate^N (1 for a sublinear bound)
    from fairtheory.proofs.certificate import family_statement

    m = st["method"]
    kw = {"N": k} if m["name"] == "gd" else {"n": st["n"], "p": st["p"], "kappa": m["kappa"], "T_N": k,
                                            "schedule": m["schedule"], "output": m["output"]}
    return family_statement(m["name"], lo=par["lo"], hi=par["hi"], num=num, den=den, **kw)


# ------------------------------------------------------------------------------------------------ certificate
@dataclass
class PotentialCertificate:
    """A ``pep-potential`` statement and the multipliers of its obligations (checked by the kernel)."""

    statement: dict[str, Any]          #: JSON statement
    evidence: dict[str, Any]
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"kind": "pep-potential", "version": 1, "statement", "evidence", "meta"}`` (meta is never read)."""
        meta = {"seconds": round(self.seconds, 3), "in_words": self.describe()} | {
            k: v for k, v in self.meta.items() if isinstance(v, (str, int, float, bool))}
        return {"kind": "pep-potential", "version": 1, "statement": self.statement, "evidence": self.evidence,
                "meta": meta}

    def check(self) -> bool:
        """The kernel's exact re-check of :meth:`to_json`."""
        return K.check_potential(self.to_json())

    def describe(self) -> str:
        """The proved statement in words (generated from the canonical statement)."""
        return K.describe(K.canonical(self.statement))

    def bound(self, *, L: Any = 1, D0: Any = 1, rho2: Any = 0, **kw: Any) -> Fraction:
        """``L D0 b(N, t)`` exactly: ``bound(N=..., h=...)`` (gd) or ``bound(T_N=..., h=...)`` (local_gd), ``h = lr L``
        the normalised step; an every-``rho`` statement adds ``(rho2/L) c(T_N, t)``."""
        st = K.canonical(self.statement)
        gd = st["method"]["name"] != "local_gd"
        kname, tname = ("N" if gd else "T_N"), "h"
        if set(kw) != {kname, tname}:
            raise FairtheoryValueError(f"bound(): give exactly {kname}= and {tname}=, got {sorted(kw)}")
        k = kw[kname]
        if isinstance(k, bool) or not isinstance(k, int) or k < (1 if gd else 0):
            raise FairtheoryValueError(f"bound(): {kname} must be an integer >= {1 if gd else 0}, got {k!r}")
        t, Lq, Dq = _q(kw[tname], tname), _q(L, "L"), _q(D0, "D0")
        if Lq <= 0 or Dq < 0:
            raise FairtheoryValueError(f"bound(): need L > 0 and D0 >= 0, got L = {Lq}, D0 = {Dq}")
        lo, hi = st["parameter"]["lo"], st["parameter"]["hi"]
        if not lo <= t <= hi:
            raise FairtheoryValueError(f"bound(): {tname} = {t} is outside the proved range [{lo}, {hi}]")
        rq = _q(rho2, "rho2")
        if rq < 0 or (rq and st["bound"]["rho2"] is not None):
            raise FairtheoryValueError(f"bound(): rho2 = {rq} is not covered (this statement is for rho2 = 0)" if rq > 0
                                       else f"bound(): rho2 must be >= 0, got {rq}")
        # bound_at includes rate^N; a distance bound ||x_N - x*||^2 <= D0 (...) has no factor L
        out = (Dq if st.get("measure") == "distance" else Lq * Dq) * K.bound_at(st, k, t)
        if rq:
            hn, hd = st["bound"]["hetero"]
            out += rq / Lq * K._frac(K._at(hn, k)(K._fq(t))) / K._frac(K._at(hd, k)(K._fq(t)))
        return out


# ------------------------------------------------------------------------------------------------ templates
def _row(ob: Any, i: int, xj: Any, xk: Any) -> int:
    """Index of client ``i``'s interpolation row for the ordered pair of points at ``xj``, ``xk`` (``None``: x*)."""
    off = sum(len(pts) * (len(pts) - 1) for pts in ob.b.points[:i])
    xs = [x for x, _, _ in ob.b.points[i]]
    j, k = xs.index({} if xj is None else xj), xs.index({} if xk is None else xk)
    return off + j * (len(xs) - 1) + (k if k < j else k - 1)


def _gd_classical(lo: Fraction, hi: Fraction, a0: Fraction) -> tuple[dict[str, Any], dict[str, Any]]:
    st = potential_statement("gd", lo=lo, hi=hi, terms={"f": _kp(a0, [0, 1]), "xx": _kp(Fraction(1, 2))},
                             initial=([_s(a0 + 1)], ["2"]), bound=(_kp(a0 + 1), _kp(2 * a0, [0, 2])))
    obs = K.obligations(K.canonical(st))
    ob = obs["step"][0]
    x, xp = ob.b.points[0][1][0], ob.b.points[0][2][0]
    step = {"denominator": ["1"], "multipliers": [
        [_row(ob, 0, x, xp), _kp([a0, 1], [0, 1])],      # f_+ >= f + <g_+, x_+ - x> ... times (a0 + h + h k)
        [_row(ob, 0, None, x), _kp([0, 1])]]}             # f* >= f + <g, x* - x> + |g|^2/2, times h
    ob = obs["initial"][0]
    x0 = ob.b.points[0][1][0]
    rows = obs["initial"][1]
    init = {"denominator": ["1"], "multipliers": [[_row(ob, 0, None, x0), _kp(2 * a0)], [len(rows) - 1, _kp(a0 + 1)]]}
    final = {"denominator": ["1"], "multipliers": []}
    return st, {"step": step, "initial": init, "final": final}


def _gd_lyapunov2(lo: Fraction, hi: Fraction) -> tuple[dict[str, Any], dict[str, Any]]:
    """``phi_k = (2 h k + 1)(f - f*) + h^2 k (k + 2)||g_k||^2 + ||x_k - x*||^2`` (``L = 1``; PEPit's Lyapunov 2 at
    ``h = 1``), one step for ``h`` in ``(0, 1]`` (multipliers over the denominator ``h``), ``phi_0 <= 3/2``, and the
    final relation ``(4 h N + 2)(f - f*) <= phi_N`` (``f - f* <= <g, x - x*> - ||g||^2/2`` times ``2 h N + 1``; the
    PSD test scales ``x - x*`` by ``2 h N + 1 - 2 h``): bound ``3/(8 N h + 4)``.  At ``h = 1`` exactly the final
    relation is sharper, ``(4 N + 3)(f - f*) <= phi_N``: ``3/(8 N + 6)``."""
    point = lo == hi == 1
    bound = (_kp(3), _kp(6, 8)) if point else (_kp(3), _kp(4, [0, 8]))
    st = potential_statement("gd", lo=lo, hi=hi, terms={"f": _kp(1, [0, 2]), "gg": _kp(0, [0, 0, 2], [0, 0, 1]),
                                                        "xx": _kp(1)}, initial=(["3"], ["2"]), bound=bound)
    obs = K.obligations(K.canonical(st))
    ob = obs["step"][0]
    x, xp = ob.b.points[0][1][0], ob.b.points[0][2][0]
    step = {"denominator": ["0", "1"], "multipliers": [
        [_row(ob, 0, x, xp), _kp([4, -4, 6], [0, 0, 8], [0, 0, 2])],
        [_row(ob, 0, xp, x), _kp([4, -5, 4], [0, 0, 6], [0, 0, 2])],
        [_row(ob, 0, None, x), _kp([0, 0, 2])]]}
    ob, rows = obs["initial"]
    init = {"denominator": ["1"], "multipliers": [[_row(ob, 0, None, ob.b.points[0][1][0]), _kp(2)],
                                                  [len(rows) - 1, _kp(3)]]}
    ob = obs["final"][0]
    r = _row(ob, 0, None, ob.b.points[0][1][0])
    final = {"denominator": ["1"], "multipliers": [[r, _kp(24, 12)]]} if point else {
        "denominator": ["1"], "multipliers": [[r, _kp([6, 12], [0, 12])]], "scale": [[0, _kp(1, [0, 2])]]}
    return st, {"step": step, "initial": init, "final": final}


def _agm() -> tuple[dict[str, Any], dict[str, Any]]:
    """PEPit's accelerated-gradient potential: the kernel's one-step inequality in ``s = 1/lambda_(k+1)`` (docs 8.3)
    with the multipliers of the classical proof: ``1`` on ``(y, x+)`` (descent), ``1 - s`` on ``(x, y)`` and ``s`` on
    ``(x*, y)`` (convexity); bound ``2 L D0/(N + 1)^2``."""
    st = potential_statement("agm", lo=1, hi=1, bound=(_kp(2), _kp(1, 2, 1)))
    ob = K.obligations(K.canonical(st))["step"][0]
    x, y, xp = (pt[0] for pt in ob.b.points[0][1:4])
    step = {"denominator": ["1"], "multipliers": [[_row(ob, 0, y, xp), _kp(1)], [_row(ob, 0, x, y), _kp([1, -1])],
                                                  [_row(ob, 0, None, y), _kp([0, 1])]]}
    return st, {"step": step}


def _local_gd(lo: Fraction, hi: Fraction, n: int, p: list[Fraction], kappa: int, schedule: str,
              bound: tuple[Any, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    bnd = bound or (_kp(1), _kp([0, 2], [0, 2]))
    st = potential_statement("local_gd", lo=lo, hi=hi, terms={"xx": _kp(1)}, initial=(["1"], ["1"]), bound=bnd,
                             weight=(["0", "2"], ["1"]), n=n, p=p, kappa=kappa, schedule=schedule)
    obs = K.obligations(K.canonical(st))
    ob = obs["step"][0]
    mult = []
    for i in range(n):
        pts = [x for x, _, _ in ob.b.points[i]]
        two_tp = _kp([0, 2 * p[i]])
        mult.append([_row(ob, i, None, pts[1]), two_tp])
        for y in pts[2:]:
            mult += [[_row(ob, i, None, y), two_tp], [_row(ob, i, y, None), two_tp]]
    step = {"denominator": ["1"], "multipliers": mult}
    ob, rows = obs["initial"]
    mult = [[len(rows) - 1, _kp(1)]]
    for i in range(n):
        pts = [x for x, _, _ in ob.b.points[i]]
        for y in pts[1:]:
            two_tp = _kp([0, 2 * p[i]])
            mult += [[_row(ob, i, None, y), two_tp], [_row(ob, i, y, None), two_tp]]
    init = {"denominator": ["1"], "multipliers": mult}
    return st, {"step": step, "initial": init, "final": {"denominator": ["1"], "multipliers": []}}


def _drift(st: dict[str, Any], ev: dict[str, Any], kappa: int, hetero: tuple[Any, Any] | None) -> dict[str, Any]:
    """The every-``rho`` form of a local-GD statement: the same multipliers (they prove the round inequality with
    ``rho > 0`` up to ``C rho^2``), ``C = c h^3`` with ``c = q (kappa - 1) kappa (2 kappa - 1)/12`` for the first
    ``q`` in ``1, 17/16, 9/8, 5/4, 3/2, 2, 4, 8`` that the kernel accepts (``q = 1`` is the numerical threshold of this
    certificate, docs/proofs.md 8.3); the bound's ``rho^2`` part ``C/w = c h^2/2`` or ``hetero``."""
    base = Fraction((kappa - 1) * kappa * (2 * kappa - 1), 12)
    for q in (Fraction(1), Fraction(17, 16), Fraction(9, 8), Fraction(5, 4), Fraction(3, 2), Fraction(2), Fraction(4),
              Fraction(8)):
        c = q * base
        out = dict(st, potential=dict(st["potential"], drift={"num": ["0", "0", "0", _s(c)], "den": ["1"]}),
                   bound={"hetero": {"num": list(hetero[0]), "den": list(hetero[1])} if hetero else
                          {"num": _kp([0, 0, c / 2]), "den": _kp(1)}, "num": st["bound"]["num"],
                          "den": st["bound"]["den"]})
        if K.check_potential({"kind": "pep-potential", "version": 1, "statement": out, "evidence": ev}):
            return out
    return out  # the caller's check names the failure


# ------------------------------------------------------------------------------------------------ float scan
def _float_excess(st_json: dict[str, Any], k: int, t: Fraction) -> float:
    """Float SDP value of the one-step obligation at ``(k, t)`` with ``||x - x*||^2 + sum ||g||^2 <= 1`` added
    (``> 0``: the potential does not decrease there; a float value, never a proof)."""
    from fairtheory.proofs.parametric import _float_solve

    ob, rows = K.obligations(K.canonical(st_json))["step"]
    tq = K._fq(t)

    def ev(kp: list[Any]) -> Fraction:
        return sum((K._frac(c(tq)) * k ** m for m, c in enumerate(kp)), Fraction(0))

    def sub(G: dict[Any, Any]) -> dict[Any, Fraction]:
        return {key: v for key, e in G.items() if (v := K._frac(e(tq))) != 0}

    rws = [(sub(G), dict(F), c) for G, F, c in rows]
    rws.append(({(a, a): Fraction(1) for a in range(ob.b.dim)}, {}, Fraction(-1)))
    obj = ({key: v for key, e in ob.G.items() if (v := ev(e)) != 0}, {f: ev(e) for f, e in ob.F.items()}, ev(ob.c))
    data = {"dim": ob.b.dim, "nf": ob.b.nf, "n_eq": 0, "n_interp": len(rows), "rows": rws, "objective": obj}
    _, sol = _float_solve(data)
    return float(sol.value)


def _locate(st_json: dict[str, Any], lo: Fraction, hi: Fraction) -> str:
    pts = sorted({lo, hi, lo + (hi - lo) / 4, (lo + hi) / 2, lo + 3 * (hi - lo) / 4})
    for t in pts:
        for k in (0, 1, 10, 100):
            try:
                v = _float_excess(st_json, k, t)
            except Exception:  # noqa: BLE001 - a float diagnostic only
                continue
            if v > 1e-6:
                return f"; float SDP: the potential increases at k = {k}, parameter = {t} ({float(t):.6g}) by {v:.3g}"
    return ""


# ------------------------------------------------------------------------------------------------ searched gd
#: the searched templates of gd (sublinear): (k-degree of the potential, scale ``sigma`` of ``x - x*`` in the final
#: relation, ``s(k) = 1 + sigma k``, as a function of ``h``; ``None``: no scale).  The scale lets the kernel's
#: coefficient-wise test see the final relation's ``N``-growing cross term (docs/proofs.md 8.3); ``sigma = h/(1 + h)``
#: (``s`` proportional to ``1 + h N``) reaches Drori-Teboulle's tight ``L D0/(4 N h + 2)`` (measured, 8.4).
GD_TEMPLATES: tuple[tuple[int, Any], ...] = (
    (2, lambda h: h / (1 + h)), (2, lambda h: h / 2), (2, lambda h: h), (2, lambda h: 2 * h), (2, None), (1, None))


#: the tight potential (fairtheory.proofs.tight_gd, helper "tightgd"; docs/tight_gd.md) is the default up to here:
#: the kernel accepts it on [0, 13/10] (its step's k^0 block is 2 - h^2)
TIGHT_HI = Fraction(13, 10)


def _tight(lo: Fraction, hi: Fraction, log: list[str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None:
    """Drori-Teboulle's ``L D0/(4 N h + 2)`` by the horizon-independent potential of
    :func:`fairtheory.proofs.tight_gd.tight_gd_certificate` (``h(2k+1)(f - f*) + ||x - x*||^2 - h <x - x*, g> +
    (h^2 k^2 + h k + h/2)||g||^2``), or ``None`` when the kernel refuses it on ``[lo, hi]``."""
    from fairtheory.proofs.tight_gd import tight_gd_certificate

    c = tight_gd_certificate(lo, hi)
    ok, why = K.explain_potential(c)
    if not ok:
        log.append(f"tight potential refused on [{lo}, {hi}]: {why}")
        return None
    return c["statement"], c["evidence"], {"potential": "tight"}


def _den_key(st: dict[str, Any]) -> tuple[Fraction, Fraction]:
    """``(b, a)`` of a bound ``1/(a + b N)``: larger is better (``b`` first: every large ``N``)."""
    den = [Fraction(c[0]) for c in st["bound"]["den"]] + [Fraction(0)]
    return den[1], den[0]


def _search_gd(t: Fraction, templates: Any, log: list[str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None:
    """The best (largest ``(b, a)`` in ``1/(a + b N)``) kernel-checked certificate over ``templates`` at ``h = t``;
    stops at Drori-Teboulle's ``(4 t, 2)`` (tight: nothing is better)."""
    from fairtheory.proofs import potential_sdp as S

    best = None
    for kdeg, sig in templates:
        sg = sig(t) if callable(sig) else sig
        tp = S.Template(t=t, kdeg=kdeg, dden=1, scale=None if sg is None else (Fraction(1), Fraction(sg)))
        res = S.search_at(tp)
        if res.statement is None:
            log.append(f"kdeg {kdeg}, scale 1 + {sg} k: float optimum b = {res.value:.6g}, not rationalised "
                       f"({'; '.join(res.log[-1:])})")
            continue
        log.append(f"kdeg {kdeg}, scale 1 + {sg} k: float optimum b = {res.value:.6g}, certified den_b = "
                   f"{res.statement['bound']['den']}")
        if best is None or _den_key(res.statement) > _den_key(best[0]):
            best = (res.statement, res.evidence, {"potential": "search", "kdeg": kdeg, "scale": str(sg),
                                                  "float_b": res.value})
        if _den_key(res.statement) == (4 * t, Fraction(2)):
            break
    return best


def _linear_floor(t: Fraction, mu: Fraction) -> tuple[Fraction, str]:
    """The one-step factor of gd on the quadratics ``f = (L c/2) x^2``, ``c in {mu, 1}``: ``max((1 - t mu)^2, (1 -
    t)^2)``; no bound ``rate^N (...)`` with a smaller rate holds for every ``N`` (both measures scale by it exactly)."""
    a, b = (1 - t * mu) ** 2, (1 - t) ** 2
    c = mu if a >= b else Fraction(1)
    return max(a, b), f"f(x) = ({c} L/2) x^2 from x0 - x* = sqrt(D0): ||x_N - x*||^2 = ({max(a, b)})^N D0 and " \
        f"f(x_N) - f* = ({c}/2) ({max(a, b)})^N L D0"


def _prove_gd_linear(lo: Fraction, hi: Fraction, mu: Fraction, rate: Fraction | None, measure: str,
                     log: list[str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    from fairtheory.proofs import potential_sdp as S

    if lo != hi:
        raise PotentialNotProved(f"linear rates are searched at one step value, got the range h = [{lo}, {hi}]",
                                 kind="range", hint="h=q for each step value of interest (the kernel decides the rate "
                                 "exactly at that value)")
    t = lo
    if mu == 0 and (rate is None or rate < 1):
        c = min(Fraction(1), (1 - (rate or Fraction(0))) / (4 * t)) if t > 0 else Fraction(1)
        raise PotentialNotProved(
            f"no linear rate without strong convexity: f(x) = ({c} L/2) x^2 gives one-step factor (1 - h {c})^2 = "
            f"{(1 - t * c) ** 2} > rate {rate}" if rate is not None else
            "no linear rate without strong convexity (mu = 0): f(x) = (c L/2) x^2 contracts by (1 - h c)^2 -> 1 as c -> 0",
            point=t, kind="diverging", hint="mu=q > 0, or rate=None with mu=0 for a sublinear bound")
    floor, inst = _linear_floor(t, mu)
    if floor >= 1:
        raise PotentialNotProved(f"gd with h = {t} does not contract: {inst}", point=t, kind="diverging",
                                 hint="a step h in (0, 2)")
    if rate is not None and rate < floor:
        raise PotentialNotProved(f"the rate {rate} is below {floor}, the exact one-step factor on {inst}", point=t,
                                 kind="diverging", hint=f"rate >= {floor} (or rate=None: the smallest rate the search finds)")
    res, rho = S.rate_certificate(t, mu, measure, rate, first=(floor,))  # the quadratics' factor first: tight if it checks
    log += res.log
    if res.statement is None:
        raise PotentialNotProved(
            f"no {measure} certificate with a k-independent quadratic potential at h = {t}, mu = {mu}"
            + (f", rate {rate}" if rate is not None else f" (float SDP: smallest feasible rate {rho:.8g}, not rationalised)")
            + f"; {'; '.join(res.log[-2:])}", point=t, kind="rate" if rate is not None else "template",
            hint="a larger rate=, or measure='distance'")
    return res.statement, res.evidence, {"potential": "search", "float_rate": rho}


def _q01(x: Any, what: str, lo_open: bool) -> Fraction:
    v = _q(x, what)
    if not ((0 < v) if lo_open else (0 <= v)) or not (v <= 1 if lo_open else v < 1):
        raise FairtheoryValueError(f"{what} must lie in {'(0, 1]' if lo_open else '[0, 1)'} (units L = 1), got {v}")
    return v


# ------------------------------------------------------------------------------------------------ API
@refuses_old_names(None, also={"beta_L": "h"})
def prove_potential(method: str, *, potential: str | None = None, a0: Any = Fraction(1, 2), n: int = 2,
                    p: Any = None, kappa: int | None = None, schedule: str = "rfedfair", output: str = "average",
                    rho2: Any = 0, bound: tuple[Any, Any] | None = None, hetero: tuple[Any, Any] | None = None,
                    h: Any = None, mu: Any = 0, rate: Any = None, measure: str = "value", kdeg: int | None = None,
                    scale: Any = "auto") -> PotentialCertificate:
    r"""A ``pep-potential`` certificate for every number of iterations (module doc); ``h=(lo, hi)`` a closed rational
    range of the normalised step ``h = lr L`` (:mod:`fairtheory.worstcase.local_gd`), or one value.  ``bound``
    (local_gd): a weaker bound ``(num, den)`` as k-polynomials in JSON (e.g. 002 Thm. 1's ``2/(h (T_N + 1))``).
    ``rho2="any"`` (local_gd, rFedFair): a bound for every heterogeneity ``rho^2``, ``L D0 b(T_N) + (rho^2/L) c h^2/2``
    with the smallest ``c`` of the grid of :func:`_drift` that checks, or ``hetero=(num, den)`` (k-polynomials in JSON)
    when weaker (e.g. 002 Thm. 1's ``26 h^2 (kappa - 1)^2 kappa``).

    gd, searched (:mod:`fairtheory.proofs.potential_sdp`; one value ``h=q``): ``potential="search"`` (the default at
    one value) maximises the bound's ``1/(a + b N)`` over quadratic potentials with coefficients of degree ``kdeg``
    in ``k`` (default: the templates :data:`GD_TEMPLATES`, the best kept; ``scale=sigma`` or ``None`` fixes the final
    relation's scale ``1 + sigma k``); falls back to the hand templates when nothing checks.  ``mu=q`` (``0 <= mu < 1``,
    units ``L = 1``), ``rate=q`` (``0 < rate <= 1``) or ``measure="distance"``: a linear rate ``f(x_N) - f* <= rate^N
    L D0/den`` (``||x_N - x*||^2 <= rate^N D0/den``), the smallest rate by bisection on the SDP's feasibility when
    ``rate`` is not given.  Raises :class:`PotentialNotProved` naming the reason and what to try."""
    t0 = time.perf_counter()
    log: list[str] = []
    extra: dict[str, Any] = {}
    if not isinstance(method, str):
        raise FairtheoryValueError(f"method must be 'gd', 'agm' or 'local_gd', got {method!r}")
    muq = _q01(mu, "mu", lo_open=False)
    rq = None if rate is None else _q01(rate, "rate", lo_open=True)
    if measure not in ("value", "distance"):
        raise FairtheoryValueError(f"measure must be 'value' or 'distance', got {measure!r}")
    if kdeg is not None and (isinstance(kdeg, bool) or not isinstance(kdeg, int) or not 0 <= kdeg <= K.MAX_KDEG):
        raise FairtheoryValueError(f"kdeg must be an integer in [0, {K.MAX_KDEG}], got {kdeg!r}")
    if not (isinstance(scale, str) and scale == "auto") and scale is not None:
        scale = _q(scale, "scale")
        if scale < 0:
            raise FairtheoryValueError(f"scale must be >= 0, 'auto' or None, got {scale}")
    if method != "gd" and (muq or rq is not None or measure != "value" or kdeg is not None or scale != "auto"):
        raise FairtheoryValueError(f"mu, rate, measure, kdeg and scale are gd options (method {method!r})")
    if potential is not None and potential not in ("tight", "search", "classical", "lyapunov2"):
        raise FairtheoryValueError(f"gd: potential must be 'tight', 'search', 'classical' or 'lyapunov2', got "
                                   f"{potential!r}")
    if method == "gd":
        if h is None:
            raise FairtheoryValueError("gd: give h=(lo, hi) (step h/L) or h=q")
        lo, hi = _range(h, "h")
        if hi > 2:
            raise PotentialNotProved(
                f"gradient descent with h = {hi} > 2 has no bound for every N: on f(x) = L x^2/2, f(x_N) - f* = "
                f"(1 - h)^(2N) L D0/2 = {float((1 - hi) ** 2):.4g}^N L D0/2, unbounded in N", point=hi,
                kind="diverging", hint="h <= 2")
        linear = bool(muq) or rq is not None or measure != "value"
        if linear:
            if potential in ("classical", "lyapunov2"):
                raise FairtheoryValueError(f"potential={potential!r} is a mu = 0 sublinear template; linear rates "
                                           "(mu, rate, measure) are searched (potential='search' or None)")
            st, ev, extra = _prove_gd_linear(lo, hi, muq, rq, measure, log)
            potential = "search"
        else:
            if potential is None:
                potential = "tight" if hi <= TIGHT_HI else "search" if lo == hi else \
                    "lyapunov2" if 0 < lo and hi <= 1 else "classical"
            found = None
            if potential == "tight":
                found = _tight(lo, hi, log)
                if found is None:
                    potential = "search" if lo == hi and 0 < lo else "lyapunov2" if 0 < lo and hi <= 1 else "classical"
            if potential == "search":
                if lo != hi:
                    raise PotentialNotProved(f"the potential search runs at one step value, got h = [{lo}, {hi}]",
                                             kind="range", hint="h=q, or potential='lyapunov2' / 'classical' (hand "
                                             "templates, proved on ranges)")
                if lo == 0:
                    raise PotentialNotProved("h = 0: gd does not move; no bound decreasing in N", point=lo,
                                             kind="diverging", hint="h > 0")
                if lo == 2:
                    raise PotentialNotProved("h = 2: on f(x) = L x^2/2 the iterates alternate, f(x_N) - f* = L D0/2 for "
                                             "every N: no bound decreasing in N", point=lo, kind="diverging",
                                             hint="h < 2")
                if kdeg is not None or scale != "auto":
                    tmpl = ((kdeg if kdeg is not None else 2, scale if scale != "auto" else GD_TEMPLATES[0][1]),)
                else:
                    tmpl = GD_TEMPLATES
                found = _search_gd(lo, tmpl, log)
                if found is None:
                    log.append("search: nothing checked; hand template")
            if found is not None:
                st, ev, extra = found
            elif potential in ("search", "classical"):
                potential = "classical" if potential == "classical" or not (0 < lo and hi <= 1) else "lyapunov2"
            if found is None and potential == "classical":
                a = _q(a0, "a0")
                if a < 0:
                    raise FairtheoryValueError(f"a0 must be >= 0, got {a}")
                st, ev = _gd_classical(lo, hi, a)
            elif found is None:
                if lo == 0:
                    raise PotentialNotProved("potential='lyapunov2' needs h > 0 (its multipliers have the denominator "
                                             "h)", point=lo, kind="template", hint="potential='classical'")
                st, ev = _gd_lyapunov2(lo, hi)
    elif method == "agm":
        if h not in (None, 1):
            raise FairtheoryValueError("agm: the step is 1/L (h = 1), PEPit's accelerated gradient method")
        st, ev = _agm()
    elif method == "local_gd":
        if h is None:
            raise FairtheoryValueError("local_gd: give h=(lo, hi) (step h/L)")
        anyrho = isinstance(rho2, str) and rho2 == "any"
        output = output_name(output, where="potential_search.prove_potential")
        if output != "average" or not (anyrho or _q(rho2, "rho2") == 0) or (anyrho and schedule != "rfedfair"):
            raise PotentialNotProved("local_gd: potential certificates for the 'average' output only, at rho = 0 or for every "
                                     "rho (rho2='any', rFedFair schedule): docs/proofs.md 8.6", kind="template")
        if kappa is None or isinstance(kappa, bool) or not isinstance(kappa, int) or not 1 <= kappa <= 8:
            raise FairtheoryValueError(f"kappa must be an integer in [1, 8], got {kappa!r}")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 4:
            raise FairtheoryValueError(f"n must be an integer in [1, 4], got {n!r}")
        lo, hi = _range(h, "h")
        if lo == 0:
            raise PotentialNotProved("h = 0: the bound L D0/(2 h (T_N + 1)) is infinite there", point=lo,
                                     kind="diverging", hint="h > 0")
        pw = [Fraction(1, n)] * n if p is None else [_q(x, "p") for x in p]
        if len(pw) != n or any(x <= 0 for x in pw) or sum(pw) != 1:
            raise FairtheoryValueError(f"p must be {n} positive weights summing to 1, got {[str(x) for x in pw]}")
        st, ev = _local_gd(lo, hi, n, pw, kappa, schedule, bound)
        if anyrho:
            st = _drift(st, ev, kappa, hetero)
    else:
        raise FairtheoryValueError(f"method must be 'gd', 'agm' or 'local_gd', got {method!r}")
    meta = {"potential": potential if method == "gd" else method} | {k: v for k, v in extra.items() if k != "potential"}
    if log:
        meta["search_log"] = " | ".join(log)[:2000]
    cert = PotentialCertificate(st, ev, meta=meta)
    ok, why = K.explain_potential(cert.to_json())
    if not ok:
        lo_, hi_ = Fraction(st["parameter"]["lo"]), Fraction(st["parameter"]["hi"])
        raise PotentialNotProved(f"the potential certificate does not check on [{lo_}, {hi_}]: {why}"
                                 + _locate(st, lo_, hi_), kind="template",
                                 hint="a smaller range, one value h=q (searched), or split the range")
    cert.seconds = time.perf_counter() - t0
    return cert
