"""fairtheory.backend: namespace dispatch, data movement and scatter-add on numpy and torch."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory import backend


def test_namespace_dispatch(xp_name, to_backend):
    x = to_backend(np.arange(3.0))
    xp = backend.namespace(x)
    assert backend.is_torch(x) == (xp_name == "torch")
    assert float(xp.sum(x)) == 3.0
    assert backend.namespace(None, 1.0).__name__.endswith("numpy")


def test_like_and_to_numpy(xp_name, to_backend):
    ref = to_backend(np.zeros(2))
    data = np.array([[1.0, 2.0], [3.0, 4.0]])
    out = backend.like(data, ref)
    assert backend.is_torch(out) == (xp_name == "torch")
    assert str(out.dtype).endswith("float64")
    assert np.array_equal(backend.to_numpy(out), data)
    if xp_name == "torch":
        import torch

        out32 = backend.like(data, torch.zeros(1, dtype=torch.float32))
        assert out32.dtype == torch.float32
        assert backend.like(out32, ref).dtype == torch.float64


def test_scatter_add_matches_reference(xp_name, to_backend):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 5, size=40)
    vals = rng.normal(size=(40, 3))
    ref = np.zeros((5, 3))
    for k, i in enumerate(idx):  # reference loop (test only)
        ref[i] += vals[k]
    if xp_name == "torch":
        import torch

        out = backend.scatter_add(5, torch.as_tensor(idx), to_backend(vals))
    else:
        out = backend.scatter_add(5, idx, vals)
    assert np.max(np.abs(backend.to_numpy(out) - ref)) <= 1e-12


def test_torch_available():
    assert isinstance(backend.torch_available(), bool)
    pytest.importorskip("torch")
    assert backend.torch_available()
