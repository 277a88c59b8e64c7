"""Array-namespace dispatch (POT style): numpy by default, torch when given torch tensors.

Algorithms are written once against the array API (``array_api_compat`` gives numpy and torch one
namespace); this module adds the few things the standard lacks and moves problem data (stored as
numpy float64) to the namespace, dtype and device of the iterate it is evaluated at.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from array_api_compat import array_namespace, is_torch_array

__all__ = ["namespace", "like", "to_numpy", "is_torch", "torch_available", "scatter_add"]


def namespace(*arrays: Any) -> Any:
    """The array-API namespace of the arguments (numpy if they are numpy arrays or scalars)."""
    arrs = [a for a in arrays if a is not None and not isinstance(a, (int, float))]
    if not arrs:
        return array_namespace(np.zeros(0))
    return array_namespace(*arrs)


def is_torch(x: Any) -> bool:
    return bool(is_torch_array(x))


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def like(data: Any, ref: Any) -> Any:
    """``data`` (numpy) as an array of ``ref``'s library, dtype and device (no copy when numpy)."""
    if is_torch_array(ref):
        import torch

        if is_torch_array(data):
            return data.to(dtype=ref.dtype, device=ref.device)
        return torch.as_tensor(np.asarray(data), dtype=ref.dtype, device=ref.device)
    return np.asarray(data, dtype=np.asarray(ref).dtype if hasattr(ref, "dtype") else np.float64)


def to_numpy(x: Any) -> np.ndarray:
    """A numpy copy/view of a numpy array or a (CPU or GPU) torch tensor."""
    if is_torch_array(x):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def scatter_add(target_size: int, index: Any, values: Any) -> Any:
    """``out[index[k]] += values[k]`` (segment sum) for numpy or torch; ``out`` has leading size
    ``target_size`` and the trailing shape of ``values``."""
    if is_torch_array(values):
        import torch

        out = torch.zeros((target_size, *values.shape[1:]), dtype=values.dtype, device=values.device)
        return out.index_add_(0, index, values)
    out = np.zeros((target_size, *np.shape(values)[1:]), dtype=np.asarray(values).dtype)
    np.add.at(out, np.asarray(index), values)
    return out
