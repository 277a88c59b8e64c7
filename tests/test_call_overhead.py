"""The small-PEP fast paths of one worst-case call (issue 41, parity speed) build exactly what they replace.

On the PEPs of the catalogue (every PEPit example and operator example at its quick parameters, captured where they
call ``PEP.solve``) and on scaled copies of them:

* ``PEP.row_arrays`` (every row's terms in one pair of term matrices) is bitwise the block-by-block assembly it
  replaced (``PEP._row_arrays_by_block``, kept for large PEPs) and the per-row reference (``scalar_row`` of every
  row's terms, built as plain :class:`~fairtheory.worstcase.gram.Scalar` s);
* the dense route's assembled data (``solvers._assemble``) are bitwise those of the per-row rows and scipy's
  coordinate constructors; Clarabel's zero quadratic term is the empty matrix of its size (kept per size, read-only);
* the operator classes' array-built pair rows, small and large, are the per-pair loop's rows;
* the examples' argument wrappers (a keyword-only fast path past ``Signature.bind``) give what ``Signature.bind``
  gives: the same results, the same named errors.

No timing is asserted."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import operators as O
from fairtheory.worstcase import pepit_examples as PE
from fairtheory.worstcase import pepit_operator_examples as PO
from fairtheory.worstcase import solvers
from fairtheory.worstcase.gram import LazyRow, Scalar, scalar_row
from fairtheory.worstcase.sdp import PEP, sqnorm


class _Captured(Exception):
    pass


def _capture(monkeypatch: Any, run: Any, params: dict[str, Any]) -> PEP | None:
    """The PEP an example builds (its first ``PEP.solve`` call), not solved."""
    got: list[PEP] = []

    def grab(self: PEP, **_: Any) -> Any:
        got.append(self)
        raise _Captured

    with monkeypatch.context() as m:
        m.setattr(PEP, "solve", grab)
        try:
            run(**params)
        except _Captured:
            pass
    return got[0] if got else None


def _catalogue() -> list[tuple[str, Any, dict[str, Any]]]:
    out = []
    for reg in (PE.EXAMPLES, PO.OPERATOR_EXAMPLES):
        for name, ex in sorted(reg.items()):
            for i, p in enumerate(ex.quick):
                out.append((f"{name}[{i}]", ex.run, p))
    return out


_CATALOGUE = _catalogue()


def _scaled(p: dict[str, Any], c: float) -> dict[str, Any]:
    """The parameters with the curvature-like ones times ``c`` and the steps divided by it (another scale)."""
    q = dict(p)
    for k in ("L", "M", "mu", "beta"):
        if isinstance(q.get(k), float) and q[k] > 0:
            q[k] = q[k] * c
    for k in ("gamma", "alpha"):
        if isinstance(q.get(k), float) and q[k] > 0:
            q[k] = q[k] / c
    return q


def _reference_rows(pep: PEP, nG: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every row's ``scalar_row`` from its terms as a plain Scalar (the per-row assembly), concatenated."""
    rows = pep._eq + pep._interpolation() + pep._ineq
    C, V, cnt, consts = [], [], [], []
    for s in rows:
        plain = Scalar(list(s.quad), dict(s.lin), s.const)  # builds a LazyRow's terms
        c, v = scalar_row(plain, nG)
        C.append(c.astype(np.int64))
        V.append(v.astype(np.float64))
        cnt.append(c.size)
        consts.append(-float(s.const))
    ptr = np.concatenate([[0], np.cumsum(cnt)]).astype(np.int64)
    cat_c = np.concatenate(C) if C else np.zeros(0, dtype=np.int64)
    cat_v = np.concatenate(V) if V else np.zeros(0)
    return ptr, cat_c, cat_v, np.array(consts, dtype=np.float64)


def _same_arrays(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()


@pytest.mark.parametrize("scale", [1.0, 1e3])
@pytest.mark.parametrize("case", range(len(_CATALOGUE)), ids=[c[0] for c in _CATALOGUE])
def test_row_arrays_on_the_catalogue(case: int, scale: float, monkeypatch) -> None:
    """``row_arrays`` is bitwise the block-by-block assembly and the per-row reference, in row order."""
    _, run, params = _CATALOGUE[case]
    try:
        pep = _capture(monkeypatch, run, _scaled(params, scale))
    except (FairtheoryValueError, FairtheoryTypeError):
        pytest.skip("not valid at this scale")
    if pep is None:
        pytest.skip("the example solves no PEP of this builder")
    nG = pep.dim * (pep.dim + 1) // 2
    rows = pep._eq + pep._interpolation() + pep._ineq
    new = pep.row_arrays(nG, rows)
    _same_arrays(new, pep._row_arrays_by_block(nG, rows))
    ref = _reference_rows(pep, nG)  # builds every lazy row's terms: read from them from now on
    _same_arrays(new, ref)
    _same_arrays(pep.row_arrays(nG, rows), ref)  # built rows (through _row) give the same arrays


@pytest.mark.parametrize("case", range(len(_CATALOGUE)), ids=[c[0] for c in _CATALOGUE])
def test_assembly_on_the_catalogue(case: int, monkeypatch) -> None:
    """The dense route's matrices are those of the per-row rows through scipy's coordinate constructors (duplicates
    summed by scipy), in the PEP's units and with the row units of the checked solve."""
    import scipy.sparse as sp

    from fairtheory.worstcase import checked_solve

    _, run, params = _CATALOGUE[case]
    pep = _capture(monkeypatch, run, params)
    if pep is None or pep._objective is None:
        pytest.skip("the example solves no PEP of this builder")
    U = checked_solve.pep_units(pep)
    dim, nf = pep.dim, pep.nf
    nG = dim * (dim + 1) // 2
    nx = nG + nf
    for scale, fscale, row_units in ((None, None, False), (U.vec, U.val, True)):
        asm = solvers._assemble(pep, scale, fscale, row_units)
        ptr, cat, vals, consts = _reference_rows(pep, nG)
        r = consts.size
        rows = sp.csr_matrix((vals, (np.repeat(np.arange(r), np.diff(ptr)), cat)), shape=(r, nx))
        rows.sum_duplicates()
        assert asm[0].shape == rows.shape and np.array_equal(asm[0].indptr, rows.indptr)
        assert np.array_equal(asm[0].indices, rows.indices) and asm[0].data.tobytes() == rows.data.tobytes()
        assert asm[1].tobytes() == consts.tobytes()
        P = asm[12]
        assert P.shape == (nx, nx) and P.nnz == 0 and not P.data.flags.writeable
        assert solvers._assemble(pep, scale, fscale, row_units)[12] is P  # a constant of the size
        A = asm[4]
        assert A.shape == (r + nG, nx)
        # the PSD block: -1 on every svec coordinate
        assert np.array_equal(A.toarray()[r:, :nG], -np.eye(nG))


@pytest.mark.parametrize("op", ["Monotone()", "StronglyMonotone(0.3)", "Nonexpansive()", "Lipschitz(0.8)",
                                "LipschitzStronglyMonotone(2.0, 0.5)", "LipschitzStronglyMonotone(1.5, 0)",
                                "Cocoercive(0.7)", "CocoerciveStronglyMonotone(0.5, 0.25)",
                                "NegativelyComonotone(0.2)"])
def test_operator_pair_rows_small_and_large(op: str) -> None:
    """Two points (the per-pair loop) and many points (one block of arrays): the rows the dense route reads are
    ``scalar_row`` of the loop's rows, bitwise, and the exact rows are the loop's."""
    from fairtheory.worstcase.gram import _exact_row

    seen = set()
    for steps in (1, 2, 4, 9):
        pep = PEP()
        A = O.operator(pep, eval(op, vars(O)), "A")  # noqa: S307 - the fixed list above
        O.declare_zero(A)
        x = pep.vector()
        pep.add_le(sqnorm(x) - 1)
        for t in range(steps):
            x, _ = O.resolvent(A, x, 0.7 + 0.1 * t)
        pep.maximize(sqnorm(x))
        nG = pep.dim * (pep.dim + 1) // 2
        new = A.cls.interpolation(A.points)
        kinds = {True: 0, False: 0}
        for (s, (j, k)) in new:
            kinds[type(s) is LazyRow] += 1
            assert j < k
        seen.add(kinds[True] > 0)
        assert kinds[True] == 0 or kinds[False] == 0
        ref = [(O._inner_row(*c, A.points[j], A.points[k]), (j, k)) for j in range(len(A.points))
               for k in range(j + 1, len(A.points)) for c in _kinds(A.cls)]
        assert [lab for _, lab in new] == [lab for _, lab in ref]
        for (s, _), (o, _) in zip(new, ref, strict=True):
            c, v = pep._row(s, nG)
            co, vo = scalar_row(o, nG)
            assert np.array_equal(c, co) and v.tobytes() == vo.tobytes()
            assert np.float64(-float(s.const)).tobytes() == np.float64(-float(o.const)).tobytes()
            assert _exact_row(s) == _exact_row(o)
    assert seen == {True, False}  # both paths ran


def _kinds(cls: Any) -> list[tuple[Any, Any, Any]]:
    if isinstance(cls, O.LipschitzStronglyMonotone):
        return [(-1, 0, cls.mu), (0, 1, -(cls.L * cls.L))]
    if isinstance(cls, O.CocoerciveStronglyMonotone):
        return [(-1, cls.beta, 0), (-1, 0, cls.mu)]
    if isinstance(cls, O.Lipschitz):
        return [(0, 1, -(cls.L * cls.L))]
    if isinstance(cls, O.StronglyMonotone):
        return [(-1, 0, cls.mu)]
    if isinstance(cls, O.Cocoercive):
        return [(-1, cls.beta, 0)]
    if isinstance(cls, O.NegativelyComonotone):
        return [(-1, -cls.rho, 0)]
    return [(-1, 0, 0)]


def test_row_arrays_large_pep_block_by_block(monkeypatch) -> None:
    """Past the cell budget the block-by-block assembly runs: the same arrays."""
    from fairtheory.worstcase import sdp

    pep = _capture(monkeypatch, PE.EXAMPLES["gradient_descent"].run, {"L": 3.0, "gamma": 1 / 3, "n": 6})
    assert pep is not None
    nG = pep.dim * (pep.dim + 1) // 2
    rows = pep._eq + pep._interpolation() + pep._ineq
    batched = pep.row_arrays(nG, rows)
    calls = []
    orig = PEP._row_arrays_by_block

    def spy(self: PEP, *a: Any) -> Any:
        calls.append(1)
        return orig(self, *a)

    monkeypatch.setattr(sdp, "_BATCH_CELLS", 1)
    monkeypatch.setattr(PEP, "_row_arrays_by_block", spy)
    _same_arrays(pep.row_arrays(nG, rows), batched)
    assert calls


def test_row_arrays_many_plain_rows_and_exact_rows() -> None:
    """Plain rows past the one-by-one copy (one scatter) and exact (rational) rows: the per-row reference."""
    for exact in (False, True):
        pep = PEP(exact=exact)
        f = pep.function(3 if exact else 3.0)
        f.optimum()
        xs = [pep.vector() for _ in range(4)]
        w = Fraction(1, 3) if exact else 1 / 3
        for i, x in enumerate(xs):
            pep.add_le(sqnorm(x - w * f.grad(x)) - (i + 1))
            pep.add_le(sqnorm(x) + f.value(x) * w - 2)
        pep.add_eq(sqnorm(xs[0] + xs[1]) - sqnorm(xs[2]))
        pep.maximize(f.value(xs[3]))
        nG = pep.dim * (pep.dim + 1) // 2
        rows = pep._eq + pep._interpolation() + pep._ineq
        assert sum(type(s) is Scalar for s in rows) > 4
        _same_arrays(pep.row_arrays(nG, rows), _reference_rows(pep, nG))


def test_wrappers_fast_path_is_signature_bind() -> None:
    """A keyword-only call and a positional call of an example give the same result; bad arguments the same named
    errors (the wrappers' fast path and ``Signature.bind``)."""
    kw = {"L": 3.0, "gamma": 1 / 3, "n": 2}
    a = PE.gradient_descent(**kw)
    b = PE.gradient_descent(3.0, 1 / 3, 2)
    c = PE.gradient_descent(3.0, gamma=1 / 3, n=2)
    assert a.ours == b.ours == c.ours and a.params == b.params == c.params and a.theory == b.theory
    d = PE.gradient_descent(L=3e6, gamma=1 / 3e6, n=2)   # normalised by homogeneity, the caller's parameters kept
    assert d.params == {"L": 3e6, "gamma": 1 / 3e6, "n": 2}
    assert math.isclose(d.ours, 1e6 * a.ours, rel_tol=1e-7) and math.isclose(d.theory, 1e6 * a.theory, rel_tol=1e-15)
    e = PE.gradient_descent(n=2)                          # defaults applied
    assert e.params == {"L": 3.0, "gamma": 1 / 3, "n": 2}
    with pytest.raises(FairtheoryValueError, match="gamma"):
        PE.gradient_descent(L=3.0, gamma=-1.0, n=2)
    with pytest.raises(FairtheoryTypeError, match="n must be an integer"):
        PE.gradient_descent(L=3.0, n=2.5)
    with pytest.raises(FairtheoryTypeError, match="gradient_descent"):
        PE.gradient_descent(L=3.0, step=0.1)              # an unknown keyword: Signature.bind's error, named
    with pytest.raises(FairtheoryValueError, match="L must be"):
        PE.gradient_descent(L=math.nan, gamma=-1.0)       # the first bad argument in signature order
    r = PO.proximal_point(alpha=2.2, n=3)
    assert r.ours == PO.proximal_point(2.2, 3).ours
