r"""Exact worst case of deterministic Scaffold (Karimireddy et al. 2020, option II, full participation).

Round ``r`` from the server model ``x`` with server control ``c = sum_i p_i c_i``:
``y_i <- y_i - lr (grad g_i(y_i) - c_i + c)`` ``kappa`` times from ``y_i = x``, then
``c_i^+ = c_i - c + (x - y_i)/(kappa lr)``, ``x^+ = x + server_lr sum_i p_i (y_i - x)``,
``c^+ = c + sum_i p_i (c_i^+ - c_i)`` (:mod:`fairtheory.algorithms.scaffold` with ``K=None``; ``lr`` / ``server_lr``
are the paper's local / global steps, as in ``scaffold.make``).  The
control variates are linear in the gradients the clients computed, so the method is a PEP in the same
Gram basis as local GD (:mod:`fairtheory.worstcase.local_gd`).  ``warm_start=True`` starts from
``c_i = grad g_i(x_0)`` (one extra gradient per client), else ``c_i = 0``.

Outputs: ``"last"`` (``x_R``) or ``"average"`` (``1/R sum_{r=1}^R x_r``, the mean of the server models; the old
name ``"avg"`` warns for one release, :data:`fairtheory.algorithms.names.OUTPUT_RENAMES`).  Same function class and
constraints as :func:`fairtheory.worstcase.local_gd_worst_case` (``L``-smooth convex clients,
``||x_0 - x*||^2 <= D0``, ``sum_i p_i ||grad g_i(x*)||^2 <= rho2``).  Values are scaled back exactly
(``L D0 + rho2/L``, as in :mod:`fairtheory.worstcase.local_gd`); ``certificate=True`` attaches an exact
rational dual certificate (:mod:`fairtheory.proofs.certificate`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive, check_probability_vector
from fairtheory.algorithms.names import output_name, refuses_old_names
from fairtheory.errors import FairtheoryValueError
from fairtheory.proofs.certificate import statement
from fairtheory.worstcase.finish import exact_weights, finish_worst_case
from fairtheory.worstcase.gram import Scalar, Vec, num, sqnorm, vsum
from fairtheory.worstcase.limits import check_size
from fairtheory.worstcase.local_gd import Built, extract_instance, rho2_expr
from fairtheory.worstcase.results import WorstCase, scaled, units
from fairtheory.worstcase.sdp import PEP

__all__ = ["scaffold_worst_case", "build_scaffold"]



def build_scaffold(*, n: int, p: Any, lr: Any, server_lr: Any, kappa: int, R: int,
                   warm_start: bool, output: str, L: Any = 1.0, exact: bool = False) -> Built:
    """Symbols of the Scaffold PEP (normalised units); objective ``G(x_out) - G*`` (``exact``: rational data,
    pass :class:`Fraction` parameters)."""
    pep = PEP(exact=exact)
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
            Y = [Y[i] - lr * (funcs[i].grad(Y[i]) - ci[i] + c) for i in range(n)]
        ci_new = [ci[i] - c + (x - Y[i]) / (kappa * lr) for i in range(n)]
        x = x + server_lr * vsum([Y[i] - x for i in range(n)], p)
        c = c + vsum([ci_new[i] - ci[i] for i in range(n)], p)
        ci = ci_new
        server.append(x)
    out = x if output == "last" else vsum(server) / len(server)
    obj = Scalar()
    for i in range(n):
        obj = obj + num(p[i]) * funcs[i].value(out)
    return Built(pep, funcs, x0, stars, obj, 1)


@refuses_old_names("scaffold")  # the paper's symbols as keywords are refused naming lr= / server_lr=
def scaffold_worst_case(*, n: int = 2, kappa: int, R: int, lr: float, L: float, D0: float, rho2: float,
                        server_lr: float = 1.0, p: Any = None, warm_start: bool = True,
                        output: Literal["last", "average"] = "last", return_instance: bool = False,
                        tol: float = 1e-8, certificate: bool = False) -> WorstCase:
    r"""Exact worst case of ``G(x_out) - G*`` after ``R`` rounds of deterministic Scaffold (module doc).

    ``lr`` / ``server_lr``: the local and server step sizes (the paper's local / global steps; the paper's symbols
    as keywords are refused by name, :mod:`fairtheory.algorithms.names`).  ``output``: ``"last"`` or ``"average"``.
    ``p``: ``n`` positive client weights summing to 1 (default uniform).  Raises
    :class:`~fairtheory.errors.FairtheoryValueError` for invalid arguments or a PEP beyond
    :data:`fairtheory.worstcase.limits.MAX_PEP_DIM`."""
    output = output_name(output, where="scaffold.scaffold_worst_case")
    n_i = check_integer(n, "n", low=1)
    kappa_i = check_integer(kappa, "kappa", low=1)
    R_i = check_integer(R, "R", low=1)
    lr_f = check_positive(lr, "lr")
    slr_f = check_positive(server_lr, "server_lr")
    L_f = check_positive(L, "L")
    D0_f = check_in_range(D0, "D0", low=0.0)
    rho2_f = check_in_range(rho2, "rho2", low=0.0)
    if output not in ("last", "average"):
        raise FairtheoryValueError(f"output must be 'last' or 'average', got {output!r}")
    p_arr = np.full(n_i, 1.0 / n_i) if p is None else check_probability_vector(p, "p")
    if p_arr.shape != (n_i,):
        raise FairtheoryValueError(f"p must have shape ({n_i},) (one weight per client, n={n_i}), got {p_arr.shape}")
    if np.any(p_arr <= 0):
        raise FairtheoryValueError(f"p must be positive (a client of weight 0 plays no part), got {p_arr.tolist()}")
    if D0_f == 0 and rho2_f == 0:
        raise FairtheoryValueError("D0 and rho2 are both 0: the worst case is 0 (nothing to compute)")
    pts = R_i * (kappa_i + 1) + 3
    check_size(n_i * pts + n_i, n_i * pts * (pts - 1), "scaffold_worst_case")
    S, D0n, R2n = units(L_f, D0_f, rho2_f)
    p_b, h_b, lvl_D, lvl_R = p_arr, float(Fraction(lr_f) * Fraction(L_f)), float(D0n), float(R2n)
    b = build_scaffold(n=n_i, p=p_b, lr=h_b, server_lr=slr_f, kappa=kappa_i, R=R_i,
                       warm_start=bool(warm_start), output=output)
    b.pep.add_le(sqnorm(b.x0) - lvl_D)
    if n_i > 1:
        b.pep.add_le(rho2_expr(b, p_b) - lvl_R)
    b.pep.maximize(b.objective)
    sol = b.pep.solve(tol=tol, raw=True)
    unit = scaled(1.0, S / Fraction(L_f))
    params = {"algorithm": "scaffold", "n": n_i, "kappa": kappa_i, "R": R_i, "lr": lr_f, "server_lr": slr_f, "L": L_f,
              "D0": D0_f, "rho2": rho2_f, "p": p_arr.tolist(), "warm_start": bool(warm_start), "output": output}
    def inst(s: Any) -> Any:
        return extract_instance(b, s, unit=unit, L=L_f, p=p_arr, params=params)

    tpl = None
    if certificate:
        tpl = statement(method={"name": "scaffold", "kappa": kappa_i, "R": R_i, "lr": lr_f, "server_lr": slr_f,
                                "warm_start": bool(warm_start), "output": output}, n=n_i,
                        p=exact_weights(p, p_arr), L=L_f, bound={"form": "constrained", "D0": D0_f, "rho2": rho2_f, "value": 0})
    return finish_worst_case(b.pep, sol, S, params=params, instance_of=inst if return_instance else None, extra={},
                             certificate=tpl, problem="scaffold_worst_case", objective=b.objective, x0=b.x0, n=n_i,
                             p=p_b, D0_level=D0n, rho2_level=R2n, tol=tol)
