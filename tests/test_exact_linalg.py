"""fairtheory.proofs.exact_linalg (exact PSD test, FLINT and pure Python) and fairtheory_kernel.bounded (run_bounded)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np
import pytest

from fairtheory.proofs.exact_linalg import is_psd, ldl_pivots, solve_sparse
from fairtheory_kernel.bounded import MEMORY_EXIT, run_bounded

try:
    import flint
except ImportError:  # pragma: no cover - the pure-Python backend still runs
    flint = None
needs_flint = pytest.mark.skipif(flint is None, reason="python-flint not installed")
BACKENDS = ["python", pytest.param("flint", marks=needs_flint)]


def _entries(M: list[list[Fraction]], keep_zeros: bool = False) -> dict[tuple[int, int], Fraction]:
    n = len(M)
    return {(a, b): Fraction(M[a][b]) for a in range(n) for b in range(a, n) if keep_zeros or M[a][b] != 0}


def _random_case(rng: random.Random) -> tuple[dict[tuple[int, int], Fraction], int]:
    """A random symmetric rational matrix: Gram (PSD, often rank-deficient), Gram minus a small diagonal
    term, indefinite, a zero diagonal entry with (mostly) a non-zero row, congruence-scaled by big
    rationals, or a Gram matrix plus/minus a tiny rank-one term."""
    n = rng.randint(0, 9)
    kind = rng.choice(["gram", "gram_minus", "indefinite", "zero_diag", "scaled", "tiny"])
    r = rng.randint(0, n)
    B = [[rng.randint(-3, 3) for _ in range(r)] for _ in range(n)]
    M = [[Fraction(sum(B[a][k] * B[b][k] for k in range(r))) for b in range(n)] for a in range(n)]
    if kind == "gram_minus" and n:
        k = rng.randrange(n)
        M[k][k] -= Fraction(1, rng.randint(1, 50))
    elif kind == "indefinite":
        for a in range(n):
            for b in range(a, n):
                M[a][b] = M[b][a] = M[a][b] + Fraction(rng.randint(-2, 2), rng.randint(1, 5))
    elif kind == "zero_diag" and n >= 2:
        k = rng.randrange(n)
        for j in range(n):
            M[k][j] = M[j][k] = Fraction(0)
        j = rng.randrange(n)
        if j != k and rng.random() < 0.7:
            M[k][j] = M[j][k] = Fraction(rng.choice([-1, 1]), rng.randint(1, 3))
    elif kind == "scaled":
        d = [Fraction(rng.randint(1, 10 ** rng.randint(1, 30)), rng.randint(1, 10 ** rng.randint(1, 30))) for _ in range(n)]
        M = [[M[a][b] * d[a] * d[b] for b in range(n)] for a in range(n)]
    elif kind == "tiny" and n:
        v = [rng.randint(-2, 2) for _ in range(n)]
        eps = Fraction(rng.choice([-1, 1]), 10 ** rng.randint(5, 60))
        M = [[M[a][b] + eps * v[a] * v[b] for b in range(n)] for a in range(n)]
    ent = {(a, b): M[a][b] for a in range(n) for b in range(a, n) if M[a][b] != 0 or rng.random() < 0.1}
    return ent, n


def _hostile(n: int, digits: int, seed: int = 0) -> dict[tuple[int, int], Fraction]:
    """Dense, every entry with its own ``digits``-digit denominator; diagonally dominant (PD)."""
    rng = random.Random(seed)
    ent = {}
    for a in range(n):
        for b in range(a, n):
            q = rng.randrange(10 ** (digits - 1), 10 ** digits)
            ent[(a, b)] = Fraction(rng.randrange(-q, q), q) + (n if a == b else 0)
    return ent


def _gram_rational(n: int, r: int, digits: int, seed: int = 0) -> dict[tuple[int, int], Fraction]:
    """``D^{-1} P P^T D^{-1}``: PSD of rank ``<= r``, ``digits``-digit denominators per row."""
    rng = random.Random(seed)
    half = 10 ** (digits // 2)
    P = [[rng.randrange(-half, half) for _ in range(r)] for _ in range(n)]
    d = [rng.randrange(10 ** (digits - 1), 10 ** digits) for _ in range(n)]
    ent = {}
    for a in range(n):
        for b in range(a, n):
            v = sum(P[a][k] * P[b][k] for k in range(r))
            if v:
                ent[(a, b)] = Fraction(v, d[a] * d[b])
    return ent


# ------------------------------------------------------------------------------------------------ exact PSD


@pytest.mark.parametrize("backend", BACKENDS)
def test_is_psd_matches_eigenvalues(backend: str) -> None:
    rng = np.random.default_rng(0)
    verdicts = set()
    for t in range(300):
        n = int(rng.integers(1, 7))
        B = rng.integers(-3, 4, size=(n, int(rng.integers(0, n + 1))))
        M = B @ B.T - (np.eye(n, dtype=np.int64) if t % 3 == 0 else 0)
        if t % 5 == 0:
            k = int(rng.integers(0, n))
            M[k, :] = 0
            M[:, k] = 0
        ent = {(a, b): Fraction(int(M[a, b]), 7) for a in range(n) for b in range(a, n) if M[a, b]}
        expect = bool(np.linalg.eigvalsh(M).min() > -1e-9)
        assert is_psd(ent, n, backend=backend) == expect
        verdicts.add(expect)
    assert verdicts == {True, False}


@pytest.mark.parametrize("backend", BACKENDS)
def test_ldl_pivots_exact(backend: str) -> None:
    ent = {(0, 0): Fraction(4), (0, 1): Fraction(2), (1, 1): Fraction(2), (2, 2): Fraction(0)}
    assert ldl_pivots(ent, 3, backend=backend) == [Fraction(4), Fraction(1), Fraction(0)]
    third = {(0, 0): Fraction(2, 3), (0, 1): Fraction(1, 3), (1, 1): Fraction(1, 3)}
    assert ldl_pivots(third, 2, backend=backend) == [Fraction(2, 3), Fraction(1, 6)]
    middle_dropped = {(0, 0): Fraction(1), (0, 2): Fraction(1), (2, 2): Fraction(2)}
    assert ldl_pivots(middle_dropped, 3, backend=backend) == [Fraction(1), Fraction(0), Fraction(1)]
    # a dependent index: the Schur complement is zero there
    dep = {(0, 0): Fraction(1), (0, 1): Fraction(2), (1, 1): Fraction(4), (2, 2): Fraction(5, 7)}
    assert ldl_pivots(dep, 3, backend=backend) == [Fraction(1), Fraction(0), Fraction(5, 7)]
    assert ldl_pivots({(0, 0): Fraction(0), (0, 1): Fraction(1)}, 2, backend=backend) is None  # zero pivot, non-zero row
    assert ldl_pivots({(0, 0): Fraction(-1, 10**40)}, 1, backend=backend) is None
    assert ldl_pivots({(0, 0): Fraction(1), (0, 1): Fraction(1), (1, 1): Fraction(1, 2)}, 2, backend=backend) is None
    assert ldl_pivots({}, 0, backend=backend) == [] and is_psd({}, 0, backend=backend)
    assert ldl_pivots({}, 3, backend=backend) == [Fraction(0)] * 3
    assert ldl_pivots({(0, 0): Fraction(3, 5)}, 1, backend=backend) == [Fraction(3, 5)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_pivots_are_reduced_fractions(backend: str) -> None:
    """The pivots are normalised Fractions (the FLINT path builds them without CPython's gcd)."""
    piv = ldl_pivots(_gram_rational(6, 6, 20, seed=3), 6, backend=backend)
    assert piv is not None and all(p > 0 for p in piv)
    for p in piv:
        assert p == Fraction(p.numerator, p.denominator) and p.denominator > 0
        assert Fraction(p.numerator, p.denominator).denominator == p.denominator  # coprime


@needs_flint
def test_flint_agrees_with_python_on_random_matrices() -> None:
    rng = random.Random(20240611)
    seen = {True: 0, False: 0}
    for _ in range(1500):
        ent, n = _random_case(rng)
        ref = ldl_pivots(ent, n, backend="python")
        assert ldl_pivots(ent, n, backend="flint") == ref, (ent, n)
        assert is_psd(ent, n, backend="flint") == (ref is not None), (ent, n)
        assert is_psd(ent, n, backend="python") == (ref is not None)
        seen[ref is not None] += 1
    assert seen[True] > 300 and seen[False] > 300


@needs_flint
def test_pivot_product_is_the_determinant() -> None:
    """Independent check of the FLINT pivots: their product is det(M) (FLINT's multimodular det)."""
    ent = _hostile(12, 30, seed=5)
    piv = ldl_pivots(ent, 12)
    assert piv is not None and all(p > 0 for p in piv)
    M = flint.fmpq_mat(12, 12, [flint.fmpq(ent[(min(a, b), max(a, b))].numerator, ent[(min(a, b), max(a, b))].denominator)
                                for a in range(12) for b in range(12)])
    prod = Fraction(1)
    for p in piv:
        prod *= p
    det = M.det()
    assert prod == Fraction(int(det.p), int(det.q))


@needs_flint
def test_hostile_dense_decided() -> None:
    """Dense 16 x 16, every entry with its own 30-digit denominator: decided both ways.  (The kernel's one
    routine is the fraction-free elimination: on 50 x 50 with 100-digit denominators it needs minutes, and a
    certificate that large runs out of its time budget and is refused - never accepted.)"""
    ent = _hostile(16, 30)
    assert is_psd(ent, 16) is True
    bad = dict(ent)
    bad[(3, 11)] = Fraction(10**3 + 1, 7)  # M_33 M_11,11 - M_3,11^2 < 0: a negative 2 x 2 principal minor
    assert is_psd(bad, 16) is False
    assert ldl_pivots(bad, 16) is None and ldl_pivots(bad, 16, backend="python") is None


@needs_flint
def test_rank_deficient_and_near_psd_big_entries() -> None:
    ent = _gram_rational(20, 15, 40, seed=1)
    assert is_psd(ent, 20) is True  # its time: benchmarks/bench_exact_linalg.py (rat-rows, near-psd)
    # minus eps v v^T with v outside the range (the rank is 15 < 20): one tiny negative eigenvalue
    rng = random.Random(2)
    v = [rng.randint(-5, 5) for _ in range(20)]
    eps = Fraction(1, 10**200)
    near = {(a, b): ent.get((a, b), Fraction(0)) - eps * v[a] * v[b] for a in range(20) for b in range(a, 20)}
    assert is_psd(near, 20) is False
    assert ldl_pivots(near, 20, backend="python") is None
    plus = {(a, b): ent.get((a, b), Fraction(0)) + eps * v[a] * v[b] for a in range(20) for b in range(a, 20)}
    assert is_psd(plus, 20) is True
    small = _gram_rational(10, 7, 30, seed=4)
    piv = ldl_pivots(small, 10)
    assert piv == ldl_pivots(small, 10, backend="python")
    assert piv is not None and sum(p == 0 for p in piv) == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_by_one_and_empty_and_zero_rows(backend: str) -> None:
    assert is_psd({(0, 0): Fraction(0)}, 1, backend=backend)
    assert is_psd({(0, 0): Fraction(1, 10**50)}, 1, backend=backend)
    assert not is_psd({(0, 0): Fraction(-1, 10**50)}, 1, backend=backend)
    assert is_psd({(1, 1): Fraction(2), (1, 3): Fraction(1), (3, 3): Fraction(1)}, 5, backend=backend)
    assert not is_psd({(1, 1): Fraction(0), (1, 3): Fraction(1), (3, 3): Fraction(1)}, 5, backend=backend)


def test_without_flint_the_reference_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """``HAVE_FLINT`` false (python-flint missing): the default backend is the reference elimination (which lives
    outside the kernel, in fairtheory.proofs.exact_linalg)."""
    from fairtheory.proofs import exact_linalg as xl

    monkeypatch.setattr(xl, "HAVE_FLINT", False)
    calls = []
    real = xl._ldl_pivots_python
    monkeypatch.setattr(xl, "_ldl_pivots_python", lambda e, n: calls.append(n) or real(e, n))
    assert is_psd({(0, 0): Fraction(1), (0, 1): Fraction(1), (1, 1): Fraction(1)}, 2)
    assert ldl_pivots({(0, 0): Fraction(2)}, 1) == [Fraction(2)]
    assert calls == [2, 1]
    with pytest.raises(ImportError):
        is_psd({}, 0, backend="flint")


def test_invalid_input() -> None:
    with pytest.raises(ValueError):
        is_psd({(0, 3): Fraction(1)}, 2)
    with pytest.raises(ValueError):
        ldl_pivots({(-1, 0): Fraction(1)}, 2, backend="python")
    with pytest.raises(ValueError):
        is_psd({}, 1, backend="gpu")


@needs_flint
def test_import_does_not_load_numpy() -> None:
    code = ("import sys; from fractions import Fraction; import fairtheory.proofs.exact_linalg as e; "
            "assert e.HAVE_FLINT and e.is_psd({(0, 0): Fraction(1), (0, 1): Fraction(1, 2), (1, 1): Fraction(1)}, 2); "
            "bad = [m for m in ('numpy', 'scipy', 'cvxpy', 'clarabel') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "[]"


def test_solve_sparse_dependent_and_inconsistent() -> None:
    rows = [{0: Fraction(1), 1: Fraction(1)}, {0: Fraction(2), 1: Fraction(2)}, {1: Fraction(1), 2: Fraction(1)}]
    x = solve_sparse(rows, [Fraction(1), Fraction(2), Fraction(3)], [2, 0, 1])
    assert x is not None
    for r, b in zip(rows, [1, 2, 3], strict=True):
        assert sum(v * x.get(c, 0) for c, v in r.items()) == b
    assert solve_sparse(rows, [Fraction(1), Fraction(3), Fraction(3)], [0, 1, 2]) is None


# ------------------------------------------------------------------------------------------------ run_bounded


def _add(a: int, b: int) -> int:
    return a + b


def _busy() -> None:
    while True:
        pass


def _sleep(s: float) -> str:
    time.sleep(s)
    return "slept"


def _raise() -> None:
    raise ValueError("bad certificate")


def _hog() -> int:
    return len([0] * (10**9))  # 8 GB of list


def _nested() -> tuple[tuple[str, object], tuple[str, object]]:
    return run_bounded(_add, 2, 3, seconds=5), run_bounded(_sleep, 10.0, seconds=0.3)


def _children() -> list[str]:
    path = f"/proc/self/task/{os.getpid()}/children"
    if not os.path.exists(path):
        pytest.skip("no /proc children list")
    with open(path) as f:
        return f.read().split()


def test_run_bounded_ok_returns_when_the_child_answers() -> None:
    """The answer comes back as soon as the child gives it, not at the limit (the start-up time of a bounded call:
    ``benchmarks/bench_exact_linalg.py --bounded``)."""
    assert run_bounded(_add, 1, 2) == ("ok", 3)
    for _ in range(5):
        assert run_bounded(_add, 1, 2, seconds=10) == ("ok", 3)
    t0 = time.perf_counter()
    assert run_bounded(_sleep, 0.2, seconds=600) == ("ok", "slept")
    assert time.perf_counter() - t0 < 300  # far below the 600 s limit: it did not wait for the deadline
    assert _children() == []


def test_run_bounded_timeout_kills() -> None:
    t0 = time.perf_counter()
    assert run_bounded(_busy, seconds=1.0) == ("timeout", None)
    elapsed = time.perf_counter() - t0
    assert 1.0 <= elapsed < 60  # not before the 1 s limit; the limit fired (generous: a loaded machine is slow)
    assert _children() == []


def test_run_bounded_raised_and_unpicklable() -> None:
    assert run_bounded(_raise) == ("raised", "ValueError: bad certificate")
    status, msg = run_bounded(lambda: (lambda: 1))  # a local lambda does not pickle
    assert status == "raised" and "pickle" in msg.lower()


@pytest.mark.slow
def test_run_bounded_died() -> None:
    assert run_bounded(_hog, memory_bytes=256 * 2**20) == ("died", MEMORY_EXIT)  # the memory limit, not the 8 GB list
    assert run_bounded(os._exit, 3) == ("died", 3)
    status, code = run_bounded(_busy, seconds=30, cpu_seconds=0.5)  # CPU limit ceil(0.5) + 1 = 2 s
    assert status == "died" and code in (-9, -24)
    assert _children() == []


def test_run_bounded_nested() -> None:
    assert run_bounded(_nested, seconds=10) == ("ok", (("ok", 5), ("timeout", None)))
    status, result = run_bounded(run_bounded, _add, 4, 5)  # run_bounded itself as the bounded function
    assert (status, result) == ("ok", ("ok", 9))


def test_run_bounded_validation() -> None:
    for bad in (0, -1, float("inf"), float("nan")):
        with pytest.raises(ValueError):
            run_bounded(_add, 1, 2, seconds=bad)
    with pytest.raises(ValueError):
        run_bounded(_add, 1, 2, memory_bytes=0)
