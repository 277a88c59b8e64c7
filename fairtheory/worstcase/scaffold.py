r"""Exact worst case of deterministic Scaffold (Karimireddy et al. 2020, option II, full participation).

Round ``r`` from the server model ``x`` with server control ``c = sum_i p_i c_i``:
``y_i <- y_i - eta_l (grad g_i(y_i) - c_i + c)`` ``kappa`` times from ``y_i = x``, then
``c_i^+ = c_i - c + (x - y_i)/(kappa eta_l)``, ``x^+ = x + eta_g sum_i p_i (y_i - x)``,
``c^+ = c + sum_i p_i (c_i^+ - c_i)`` (:mod:`fairtheory.algorithms.scaffold` with ``K=None``).  The
control variates are linear in the gradients the clients computed, so the method is a PEP in the same
Gram basis as local GD (:mod:`fairtheory.worstcase.local_gd`).  ``warm_start=True`` starts from
``c_i = grad g_i(x_0)`` (one extra gradient per client), else ``c_i = 0``.

Outputs: ``"last"`` (``x_R``) or ``"avg"`` (``1/R sum_{r=1}^R x_r``).  Same function class and
constraints as :func:`fairtheory.worstcase.local_gd_worst_case` (``L``-smooth convex clients,
``||x_0 - x*||^2 <= D0``, ``sum_i p_i ||grad g_i(x*)||^2 <= rho2``).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive, check_probability_vector
from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase.local_gd import Built, WorstCase, extract_instance, rho2_expr
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, sqnorm, vsum

__all__ = ["scaffold_worst_case", "build_scaffold"]


def build_scaffold(*, n: int, p: np.ndarray, eta_l: float, eta_g: float, kappa: int, R: int,
                   warm_start: bool, output: str, L: float = 1.0) -> Built:
    """Symbols of the Scaffold PEP (normalised units); objective ``G(x_out) - G*``."""
    pep = PEP()
    funcs, stars = pep.clients_at_optimum(n, p, L)
    x0 = pep.vector()
    zero = Vec(np.zeros(0))
    x = x0
    ci = [funcs[i].grad(x0) if warm_start else zero for i in range(n)]
    c = vsum(ci, p)
    server = []
    for _ in range(R):
        Y = [x] * n
        for _k in range(kappa):
            Y = [Y[i] - eta_l * (funcs[i].grad(Y[i]) - ci[i] + c) for i in range(n)]
        ci_new = [ci[i] - c + (x - Y[i]) / (kappa * eta_l) for i in range(n)]
        x = x + eta_g * vsum([Y[i] - x for i in range(n)], p)
        c = c + vsum([ci_new[i] - ci[i] for i in range(n)], p)
        ci = ci_new
        server.append(x)
    out = x if output == "last" else vsum(server) / len(server)
    obj = Scalar()
    for i in range(n):
        obj = obj + float(p[i]) * funcs[i].value(out)
    return Built(pep, funcs, x0, stars, obj, 1)


def scaffold_worst_case(*, n: int = 2, kappa: int, R: int, eta_l: float, L: float, D0: float, rho2: float,
                        eta_g: float = 1.0, p: Any = None, warm_start: bool = True,
                        output: Literal["last", "avg"] = "last", return_instance: bool = False,
                        tol: float = 1e-8) -> WorstCase:
    r"""Exact worst case of ``G(x_out) - G*`` after ``R`` rounds of deterministic Scaffold (module doc)."""
    n_i = check_integer(n, "n", low=1)
    kappa_i = check_integer(kappa, "kappa", low=1)
    R_i = check_integer(R, "R", low=1)
    el = check_positive(eta_l, "eta_l")
    eg = check_positive(eta_g, "eta_g")
    L_f = check_positive(L, "L")
    D0_f = check_in_range(D0, "D0", low=0.0)
    rho2_f = check_in_range(rho2, "rho2", low=0.0)
    if output not in ("last", "avg"):
        raise FairtheoryValueError(f"output must be 'last' or 'avg', got {output!r}")
    p_arr = np.full(n_i, 1.0 / n_i) if p is None else check_probability_vector(p, "p")
    unit = D0_f + rho2_f / L_f**2
    if unit <= 0:
        raise FairtheoryValueError("D0 and rho2 are both 0: the worst case is 0 (nothing to compute)")
    b = build_scaffold(n=n_i, p=p_arr, eta_l=el * L_f, eta_g=eg, kappa=kappa_i, R=R_i,
                       warm_start=bool(warm_start), output=output)
    b.pep.add_le(sqnorm(b.x0) - D0_f / unit)
    if n_i > 1:
        b.pep.add_le(rho2_expr(b, p_arr) - rho2_f / (L_f**2 * unit))
    b.pep.maximize(b.objective)
    sol = b.pep.solve(tol=tol)
    s = L_f * unit
    params = {"algorithm": "scaffold", "n": n_i, "kappa": kappa_i, "R": R_i, "eta_l": el, "eta_g": eg, "L": L_f,
              "D0": D0_f, "rho2": rho2_f, "p": p_arr.tolist(), "warm_start": bool(warm_start), "output": output}
    inst = extract_instance(b, sol, unit=unit, L=L_f, p=p_arr, params=params) if return_instance else None
    return WorstCase(value=sol.value * s, dual_value=sol.dual_value * s, gap=sol.gap * s, status=sol.status,
                     dim=sol.dim, n_constraints=sol.n_constraints, seconds=sol.seconds,
                     build_seconds=sol.build_seconds, scale=s, params=params, instance=inst,
                     extra={"iterations": sol.iterations, "r_prim": sol.r_prim, "r_dual": sol.r_dual})
