r"""Peer audit of SQwash 0.1.0 (superquantile reductions for torch): values, gradients, weights, modules.

* ``peers.sqwash.superquantile`` / ``superquantile_smooth``: ``reduce_superquantile`` and
  ``reduce_superquantile_smooth`` vs the capped-simplex support / projection (Rockafellar-Uryasev
  superquantile), checked against the HiGHS LP / Clarabel QP;
* ``peers.sqwash.superquantile_grad``: the autograd gradient of ``reduce_superquantile`` vs the exact
  dual weights (a gradient must be a maximiser over the capped simplex);
* ``peers.sqwash.smooth_weights``: ``solve_qp_for_l2_smooth_superquantile`` (and the gradient of
  ``reduce_superquantile_smooth``) vs the exact projection and the Clarabel QP;
* ``peers.sqwash.SuperquantileReducer`` / ``SuperquantileSmoothReducer``: the ``torch.nn.Module``
  reducers' forward value and backward gradient vs the exact ones.

The references are in :mod:`verify.claims.peers.compare`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from verify.claims.peers.compare import (
    check_projection,
    check_reference,
    combine_parts,
    exact_grad_error,
    smooth_weights,
    superquantile,
    superquantile_smooth,
    tail_set,
    vec_equal,
)
from verify.claims.peers.support import attempt, err, lst, needs, note
from verify.core import Context, Outcome, Tally, claim

__all__ = ["sqwash_superquantile", "sqwash_superquantile_smooth", "sqwash_grad", "sqwash_smooth_grad",
           "sqwash_module", "sqwash_smooth_weights"]


# ============================================================================ adapters
def _tensor(x: Any, grad: bool = False) -> Any:
    import torch

    return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=grad)


def sqwash_superquantile(x: Any, theta: float) -> float:
    """``sqwash.reduce_superquantile`` on a float64 tensor of ``x``."""
    from sqwash import reduce_superquantile

    return float(reduce_superquantile(_tensor(x), theta))


def sqwash_superquantile_smooth(x: Any, theta: float, nu: float) -> float:
    """``sqwash.reduce_superquantile_smooth`` on a float64 tensor of ``x``."""
    from sqwash import reduce_superquantile_smooth

    return float(reduce_superquantile_smooth(_tensor(x), theta, nu))


def _value_and_grad(fn: Callable[[Any], Any], x: Any) -> tuple[float, np.ndarray]:
    t = _tensor(x, grad=True)
    v = fn(t)
    v.backward()
    return float(v.detach()), t.grad.numpy().astype(np.float64)


def sqwash_grad(x: Any, theta: float) -> tuple[float, np.ndarray]:
    """``reduce_superquantile`` of a float64 tensor of ``x`` and its autograd gradient."""
    from sqwash import reduce_superquantile

    return _value_and_grad(lambda t: reduce_superquantile(t, theta), x)


def sqwash_smooth_grad(x: Any, theta: float, nu: float) -> np.ndarray:
    """The autograd gradient of ``reduce_superquantile_smooth`` at a float64 tensor of ``x``."""
    from sqwash import reduce_superquantile_smooth

    return _value_and_grad(lambda t: reduce_superquantile_smooth(t, theta, nu), x)[1]


def sqwash_module(x: Any, theta: float, nu: float | None = None) -> tuple[float, np.ndarray]:
    """``SuperquantileReducer(theta)`` (``nu is None``) or ``SuperquantileSmoothReducer(theta, nu)`` called as
    a module on a float64 tensor of ``x``: forward value and the gradient of its backward pass."""
    from sqwash import SuperquantileReducer, SuperquantileSmoothReducer

    return _value_and_grad(SuperquantileReducer(theta) if nu is None else SuperquantileSmoothReducer(theta, nu), x)


def sqwash_smooth_weights(x: Any, theta: float, nu: float) -> np.ndarray:
    """SQwash's primal solution of the smoothed QP, ``solve_qp_for_l2_smooth_superquantile``."""
    import torch
    from sqwash.qp_solve import solve_qp_for_l2_smooth_superquantile

    q = solve_qp_for_l2_smooth_superquantile(torch.as_tensor(np.asarray(x, dtype=np.float64)), theta, nu)
    return q.numpy().astype(np.float64)


# ============================================================================ instances
_GRID = [0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]


def _random_losses(rng: np.random.Generator, n_max: int, exps: tuple[int, int]) -> np.ndarray:
    """``n < n_max`` normal losses at a scale ``10^k``, ``k`` in ``range(*exps)``; rounded (ties) 30% of the time."""
    n = int(rng.integers(1, n_max))
    x = rng.normal(size=n) * 10.0 ** rng.integers(*exps)
    return np.round(x) if rng.uniform() < 0.3 else x


def _sq_cases(ctx: Context, salt: str, count: tuple[int, int], *, grid: list[float], n_grid: int, n_max: int,
              exps: tuple[int, int]) -> list[tuple[np.ndarray, float, float]]:
    """``(x, theta, size)``: a small exhaustive grid (``n < n_grid``, values in {0, 1, 2}), then random vectors
    (``n < n_max``, scales ``10^exps``; their size is ``n + 0.5`` so that at equal ``n`` a grid
    counterexample is reported)."""
    rng = ctx.rng(salt)
    cases = []
    for n in range(1, n_grid):
        for vals in np.ndindex(*(3,) * n):
            for th in grid:
                cases.append((np.array(vals, dtype=np.float64), th, float(n)))
    for _ in range(ctx.count(*count)):
        x = _random_losses(rng, n_max, exps)
        cases.append((x, float(rng.choice([rng.uniform(0, 1), *grid])), x.size + 0.5))
    return cases


def _smooth_cases(ctx: Context, salt: str, count: tuple[int, int], *, n_max: int,
                  exps: tuple[int, int]) -> list[tuple[np.ndarray, float, float, float]]:
    """``(x, theta, nu, size)``: zeros and ``0, 1, ..., n-1`` for ``n <= 8``, then random vectors (size ``n + 0.5``)."""
    rng = ctx.rng(salt)
    cases = []
    for n in range(1, 9):
        for th in (0.25, 0.5, 1.0):
            cases.append((np.zeros(n), th, 1.0, float(n)))
            cases.append((np.arange(n, dtype=np.float64), th, 1.0, float(n)))
    for _ in range(ctx.count(*count)):
        x = _random_losses(rng, n_max, exps)
        cases.append((x, float(rng.choice([0.1, 0.25, 0.5, 0.75, 1.0, rng.uniform(0.05, 1)])),
                      float(rng.choice([0.01, 0.1, 1.0, 10.0])), x.size + 0.5))
    return cases


def _scale(x: np.ndarray) -> float:
    return max(1.0, float(np.max(np.abs(x))))


def _subgradient(tally: Tally, g: Any, x: np.ndarray, theta: float, inst: dict[str, Any], size: float,
                 **shown: Any) -> float:
    """Record ``g``'s distance from the superquantile's subdifferential (:func:`exact_grad_error`, bound 0,
    tolerance 1e-6: SQwash forms its tail weight in float32); an exception counts as nan."""
    if isinstance(g, BaseException):
        tally.equal(math.nan, 0.0, rtol=1e-6, scale=1.0, instance={**inst, "peer_error": err(g)}, size=size)
        return math.inf
    e = exact_grad_error(x, theta, g)
    tally.equal(e, 0.0, rtol=1e-6, scale=1.0, instance={**inst, "gradient": lst(g), **shown}, size=size)
    return e


_SQWASH = ("superquantile_tail_fraction theta is the mass of the upper tail: the superquantile is "
           "max{q . x : 0 <= q_i <= 1/(theta n), sum q = 1} (SQwash's docstring writes min; its code and examples "
           "take the upper tail).")


# ============================================================================ values
@claim("peers.sqwash.superquantile", citation="SQwash 0.1.0 reduce_superquantile; Rockafellar-Uryasev (2000)",
       statement="sqwash.reduce_superquantile(x, theta) equals the empirical superquantile "
                 "max{q.x : 0 <= q <= 1/(theta n), sum q = 1} (capped-simplex support and HiGHS LP), rtol 1e-6",
       expected="refuted")
@needs("sqwash")
def sqwash_superquantile_claim(ctx: Context) -> Outcome:
    """SQwash's superquantile vs the exact one.  Tolerance ``1e-6``: SQwash forms its tail weight
    ``(#tail)/(n theta)`` in torch's default dtype (float32) even for float64 losses."""
    tally, worst_ref = Tally(), 0.0
    for k, (x, th, size) in enumerate(_sq_cases(ctx, "peers.sqwash.superquantile", (200, 2000), grid=_GRID, n_grid=5,
                                                n_max=40, exps=(-6, 7))):
        ours = superquantile(x, th)
        if k % 17 == 0:
            worst_ref = max(worst_ref, check_reference("superquantile", ours, superquantile(x, th, exact=True), 1e-8,
                                                       (x, th)))
        vec_equal(tally, attempt(lambda x=x, th=th: sqwash_superquantile(x, th)), ours, rtol=1e-6,
                  instance={"x": lst(x), "theta": th}, size=size, floor=_scale(x))
    return tally.outcome(note=f"{note('sqwash')}. {_SQWASH}", details={"reference_vs_lp": worst_ref},
                         explain="measured = sqwash.reduce_superquantile(x, theta), bound = exact superquantile; "
                                 "SQwash evaluates the Rockafellar-Uryasev objective at torch.quantile's linearly "
                                 "interpolated quantile, which is not a minimiser when theta n is fractional")


@claim("peers.sqwash.superquantile_smooth",
       citation="SQwash 0.1.0 reduce_superquantile_smooth; Laguel et al. (2021)",
       statement="sqwash.reduce_superquantile_smooth(x, theta, nu) equals max_{q in C} q.x - nu/(2n)||q - 1/n||^2 "
                 "(closed-form projection and Clarabel QP), rtol 1e-9",
       expected="refuted")
@needs("sqwash")
def sqwash_superquantile_smooth_claim(ctx: Context) -> Outcome:
    """SQwash's smoothed superquantile vs the exact QP value."""
    tally, worst_ref = Tally(), 0.0
    for k, (x, th, nu, size) in enumerate(_smooth_cases(ctx, "peers.sqwash.superquantile_smooth", (150, 1500),
                                                        n_max=30, exps=(-4, 5))):
        ours = superquantile_smooth(x, th, nu)
        if k % 13 == 0:
            worst_ref = max(worst_ref, check_reference("smoothed superquantile", ours,
                                                       superquantile_smooth(x, th, nu, exact=True), 1e-7, (x, th, nu)))
        vec_equal(tally, attempt(lambda x=x, th=th, nu=nu: sqwash_superquantile_smooth(x, th, nu)), ours, rtol=1e-9,
                  instance={"x": lst(x), "theta": th, "nu": nu}, size=size, floor=_scale(x))
    return tally.outcome(note=f"{note('sqwash')}. {_SQWASH}", details={"reference_vs_qp": worst_ref},
                         explain="measured = sqwash.reduce_superquantile_smooth(x, theta, nu), bound = the exact QP "
                                 "value; a peer exception counts as measured = nan")


# ============================================================================ gradients and weights
_SQ_NOTE = ("superquantile_tail_fraction theta = upper-tail mass, caps 1/(theta n); a gradient must be a maximiser of "
            "q.x over the capped simplex (the superquantile's subdifferential); tolerance 1e-6 (SQwash's tail weight is "
            "formed in float32)")
_GRID_GRAD = [0.0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.7, 0.75, 0.9, 1.0]


@claim("peers.sqwash.superquantile_grad", citation="SQwash 0.1.0 reduce_superquantile (autograd); Rockafellar-Uryasev (2000)",
       statement="the autograd gradient of sqwash.reduce_superquantile(x, theta) is a maximiser of q.x over the capped "
                 "simplex {0 <= q <= 1/(theta n), sum q = 1} (the exact dual weights), to 1e-6",
       expected="refuted")
@needs("sqwash")
def sqwash_grad_claim(ctx: Context) -> Outcome:
    tally, unique_dev, agree = Tally(), 0.0, 0.0
    for x, th, size in _sq_cases(ctx, "peers.sqwash.superquantile_grad", (200, 2000), grid=_GRID_GRAD, n_grid=4,
                                 n_max=30, exps=(-3, 4)):
        res = attempt(lambda x=x, th=th: sqwash_grad(x, th))
        g = res if isinstance(res, BaseException) else res[1]
        exact = tail_set(x.size, th).argmax(x)
        e = _subgradient(tally, g, x, th, {"x": lst(x), "theta": th}, size, exact=lst(exact))
        if e <= 1e-6:
            agree = max(agree, e)
            if len(set(x.tolist())) == x.size:
                unique_dev = max(unique_dev, float(np.max(np.abs(g - exact))))
    return tally.outcome(note=f"{note('sqwash')}. {_SQ_NOTE}", details={"distinct_x_agreeing_vs_argmax": unique_dev,
                                                                    "largest_error_where_a_subgradient": agree},
                         explain="measured = max(infeasibility of SQwash's gradient in the capped simplex, "
                                 "|SQ(x) - g.x|/max(1, |x|)), bound = 0")


@claim("peers.sqwash.smooth_weights",
       citation="SQwash 0.1.0 qp_solve.solve_qp_for_l2_smooth_superquantile; Laguel et al. (2021)",
       statement="SQwash's primal weights of the smoothed QP (and the gradient of reduce_superquantile_smooth) equal "
                 "q* = Proj_C(1/n + n x/nu) (closed-form projection, Clarabel QP), rtol 1e-9",
       expected="refuted")
@needs("sqwash")
def sqwash_smooth_weights_claim(ctx: Context) -> Outcome:
    parts = {"solve_qp_for_l2_smooth_superquantile": Tally(), "gradient of reduce_superquantile_smooth": Tally()}
    worst_ref, agree = 0.0, 0.0
    for k, (x, th, nu, _) in enumerate(_smooth_cases(ctx, "peers.sqwash.smooth_weights", (150, 1500), n_max=25,
                                                     exps=(-3, 4))):
        ours = smooth_weights(x, th, nu)
        if k % 11 == 0:  # closed form vs the QP: within the QP's certified radius sqrt(2 gap)
            worst_ref = max(worst_ref, check_projection("smoothed weights", ours, tail_set(x.size, th),
                                                        1.0 / x.size + x.size * x / nu, (x, th, nu)))
        inst = {"x": lst(x), "theta": th, "nu": nu}
        peer = attempt(lambda x=x, th=th, nu=nu: sqwash_smooth_weights(x, th, nu))
        vec_equal(parts["solve_qp_for_l2_smooth_superquantile"], peer, ours, rtol=1e-9, instance=inst, size=x.size,
                  floor=1.0)
        if not isinstance(peer, BaseException) and np.shape(peer) == ours.shape and np.all(np.isfinite(peer)):
            agree = max(agree, float(np.max(np.abs(peer - ours))))
        vec_equal(parts["gradient of reduce_superquantile_smooth"],
                  attempt(lambda x=x, th=th, nu=nu: sqwash_smooth_grad(x, th, nu)), ours, rtol=1e-9, instance=inst,
                  size=x.size, floor=1.0)
    return combine_parts(parts, explain="measured = SQwash's weight of largest deviation, bound = the exact maximiser "
                                        "(an exception counts as nan)",
                         note=f"{note('sqwash')}; caps 1/(theta n); the smoothed objective max_q q.x - nu/(2n)||q - 1/n||^2 "
                              "has the unique maximiser Proj_C(1/n + n x/nu)",
                         details={"projection_vs_qp": worst_ref, "largest_deviation_where_sqwash_returns": agree})


# ============================================================================ torch modules
def _module_claim(ctx: Context, smooth: bool) -> Outcome:
    parts = {"forward value": Tally(), "backward gradient": Tally()}
    name = "SuperquantileSmoothReducer" if smooth else "SuperquantileReducer"
    if smooth:
        cases: list[tuple[np.ndarray, float, float | None, float]] = [
            (x, th, nu, float(x.size)) for x, th, nu, _ in _smooth_cases(ctx, f"peers.sqwash.{name}", (100, 1000),
                                                                          n_max=25, exps=(-3, 4))]
    else:
        cases = [(x, th, None, size) for x, th, size in _sq_cases(ctx, f"peers.sqwash.{name}", (150, 1500),
                                                                  grid=_GRID_GRAD, n_grid=4, n_max=30, exps=(-3, 4))]
    rtol = 1e-9 if smooth else 1e-6
    for x, th, nu, size in cases:
        inst = {"x": lst(x), "theta": th} if nu is None else {"x": lst(x), "theta": th, "nu": nu}
        res = attempt(lambda x=x, th=th, nu=nu: sqwash_module(x, th, nu))
        failed = isinstance(res, BaseException)
        val = superquantile(x, th) if nu is None else superquantile_smooth(x, th, nu)
        vec_equal(parts["forward value"], res if failed else res[0], val, rtol=rtol, instance=inst, size=size,
                  floor=_scale(x))
        if nu is None:
            _subgradient(parts["backward gradient"], res if failed else res[1], x, th, inst, size)
        elif failed:
            parts["backward gradient"].equal(math.nan, 0.0, rtol=rtol, scale=1.0,
                                             instance={**inst, "peer_error": err(res)}, size=size)
        else:
            vec_equal(parts["backward gradient"], res[1], smooth_weights(x, th, nu), rtol=rtol, instance=inst,
                      size=size, floor=1.0)
    tol_note = "rtol 1e-9" if smooth else "tolerance 1e-6 (float32 tail weight)"
    return combine_parts(parts, explain="forward: the module's value vs the exact one; backward: the gradient vs the "
                                        "exact maximiser (smoothed) / its distance from the subdifferential",
                         note=f"{note('sqwash')}; sqwash.{name} called as a torch module; {tol_note}")


@claim("peers.sqwash.SuperquantileReducer", citation="SQwash 0.1.0 reducers.SuperquantileReducer; Rockafellar-Uryasev (2000)",
       statement="sqwash.SuperquantileReducer(theta) as a module: its forward value is the superquantile and its "
                 "backward gradient a maximiser over the capped simplex, to 1e-6",
       expected="refuted")
@needs("sqwash")
def sqwash_reducer_claim(ctx: Context) -> Outcome:
    return _module_claim(ctx, smooth=False)


@claim("peers.sqwash.SuperquantileSmoothReducer",
       citation="SQwash 0.1.0 reducers.SuperquantileSmoothReducer; Laguel et al. (2021)",
       statement="sqwash.SuperquantileSmoothReducer(theta, nu) as a module: its forward value is the smoothed "
                 "superquantile and its backward gradient the exact maximiser, rtol 1e-9",
       expected="refuted")
@needs("sqwash")
def sqwash_smooth_reducer_claim(ctx: Context) -> Outcome:
    return _module_claim(ctx, smooth=True)
