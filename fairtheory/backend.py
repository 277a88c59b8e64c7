"""Array-namespace dispatch (POT style): numpy by default, torch when given torch tensors.

Algorithms are written once against the array API (``array_api_compat`` gives numpy and torch one
namespace); this module adds the few things the standard lacks and moves problem data (stored as
numpy float64) to the namespace, dtype and device of the iterate it is evaluated at.

It also holds the input policy of the functions that keep the caller's library (:func:`as_float`) and
the N-d twin of :func:`fairtheory._validation.as_vector` (:func:`as_array`):

* lists, tuples, Python and numpy scalars and numpy arrays of any real dtype become float64 numpy;
* torch tensors keep their library, device and floating dtype (integer tensors become float64) in
  :func:`as_float`, and are copied to host float64 numpy in :func:`as_array` (``.detach()`` on purpose:
  those functions are not differentiable);
* booleans (also inside lists) and complex numbers are rejected with :class:`FairtheoryTypeError`;
  nan and infinities with :class:`~fairtheory.errors.NonFiniteError`, naming the argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from array_api_compat import array_namespace, is_torch_array

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, NonFiniteError

__all__ = ["namespace", "like", "to_numpy", "is_torch", "is_symbolic", "torch_available", "scatter_add", "as_array",
           "as_float"]


def namespace(*arrays: Any) -> Any:
    """The array-API namespace of the arguments (numpy if they are numpy arrays, scalars or lists)."""
    arrs = [a for a in arrays if a is not None and not isinstance(a, (int, float, list, tuple))]
    if not arrs:
        return array_namespace(np.zeros(0))
    return array_namespace(*arrs)


def is_torch(x: Any) -> bool:
    return bool(is_torch_array(x))


def is_symbolic(x: Any) -> bool:
    """Whether ``x`` is a symbolic array of the PEP backend (:mod:`fairtheory.worstcase.gram_array`): its
    class sets ``__fairtheory_symbolic__``.  Constants next to it are float64 numpy (:func:`like`)."""
    return bool(getattr(type(x), "__fairtheory_symbolic__", False))


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def like(data: Any, ref: Any) -> Any:
    """``data`` (numpy) as an array of ``ref``'s library, dtype and device (no copy when numpy).

    A non-floating ``ref`` (integer or boolean) never truncates floating ``data``: that gives float64
    (integer data keeps the old behaviour, ``ref``'s dtype, e.g. labels compared with predictions)."""
    if is_torch_array(ref):
        import torch

        dtype = ref.dtype
        if not ref.is_floating_point() and _is_floating(data):
            dtype = torch.float64
        if is_torch_array(data):
            return data.to(dtype=dtype, device=ref.device)
        return torch.as_tensor(np.asarray(data), dtype=dtype, device=ref.device)
    if is_symbolic(ref):  # constants of a symbolic (PEP) computation are float64 numpy
        return np.asarray(to_numpy(data), dtype=np.float64)
    dtype = np.asarray(ref).dtype if hasattr(ref, "dtype") else np.dtype(np.float64)
    if dtype.kind != "f" and _is_floating(data):
        dtype = np.dtype(np.float64)
    return np.asarray(data, dtype=dtype)


def _is_floating(data: Any) -> bool:
    if is_torch_array(data):
        return bool(data.is_floating_point())
    return np.asarray(data).dtype.kind in "fc"


def to_numpy(x: Any) -> np.ndarray:
    """A numpy copy/view of a numpy array or a (CPU or GPU) torch tensor."""
    if is_torch_array(x):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def scatter_add(target_size: int, index: Any, values: Any) -> Any:
    """``out[index[k]] += values[k]`` (segment sum) for numpy or torch; ``out`` has leading size
    ``target_size`` and the trailing shape of ``values``."""
    if is_symbolic(values):
        return values.__fairtheory_scatter_add__(target_size, index)
    if is_torch_array(values):
        import torch

        out = torch.zeros((target_size, *values.shape[1:]), dtype=values.dtype, device=values.device)
        return out.index_add_(0, index, values)
    out = np.zeros((target_size, *np.shape(values)[1:]), dtype=np.asarray(values).dtype)
    np.add.at(out, np.asarray(index), values)
    return out


# ----------------------------------------------------------------------------------- input policy
def _has_bool(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return True
    return isinstance(x, (list, tuple)) and any(_has_bool(v) for v in x)


def _shape_ok(shape: tuple[int, ...], name: str, ndim: int | tuple[int, ...] | None, allow_empty: bool) -> None:
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if len(shape) not in allowed:
            want = " or ".join(f"{k}-D" for k in allowed)
            what = f"a {want}" if allow_empty else f"a non-empty {want}"
            raise FairtheoryValueError(f"{name} must be {what} array, got shape {shape}")
    if not allow_empty and int(np.prod(shape)) == 0 and len(shape) > 0:
        raise FairtheoryValueError(f"{name} must be non-empty, got shape {shape}")


def _check_finite(bad_mask: Any, arr: Any, name: str) -> None:
    bad = np.argwhere(bad_mask)
    idx = tuple(int(i) for i in bad[0])
    where = f" at index {idx[0] if len(idx) == 1 else idx}" if idx else ""
    raise NonFiniteError(f"{name} must be finite, got {np.asarray(arr)[idx]}{where}")


def _check_device(x: Any, name: str) -> None:
    if x.device.type == "meta":  # shape-only tensors: there are no values to compute with
        raise FairtheoryTypeError(f"{name} is a tensor on the meta device (no data); move it to a real device")


def as_array(x: Any, name: str, *, ndim: int | tuple[int, ...] | None = None, allow_empty: bool = False,
             finite: bool = True) -> np.ndarray:
    """``x`` as a float64 numpy array (any shape unless ``ndim`` is given), or raise naming ``name``.

    Torch tensors are detached and copied to host (the result is not differentiable); booleans and
    complex numbers are rejected (:class:`FairtheoryTypeError`), nan/inf too unless ``finite=False``
    (:class:`~fairtheory.errors.NonFiniteError`)."""
    if isinstance(x, (str, bytes)) or x is None:
        raise FairtheoryTypeError(f"{name} must be an array of real numbers, got {type(x).__name__}")
    if is_torch_array(x):
        if x.dtype.is_complex or str(x.dtype) == "torch.bool":
            raise FairtheoryTypeError(f"{name} must hold real numbers, got a tensor of dtype {x.dtype}")
        _check_device(x, name)
        x = x.detach().cpu().numpy()
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise FairtheoryTypeError(f"{name} must be an array of real numbers (not ragged), got {x!r}"[:200]) from exc
    if raw.dtype.kind == "b" or (isinstance(x, (list, tuple)) and _has_bool(x)):
        raise FairtheoryTypeError(f"{name} must hold real numbers, got booleans")
    if raw.dtype.kind == "c":
        raise FairtheoryTypeError(f"{name} must hold real numbers, got complex values")
    if raw.dtype.kind not in "iuf":
        try:
            raw = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise FairtheoryTypeError(f"{name} must be an array of real numbers, got {x!r}"[:200]) from exc
    arr = np.asarray(raw, dtype=np.float64)
    _shape_ok(arr.shape, name, ndim, allow_empty)
    if finite and not np.all(np.isfinite(arr)):
        _check_finite(~np.isfinite(arr), arr, name)
    return arr


def as_float(x: Any, name: str, *, ndim: int | tuple[int, ...] | None = None, allow_empty: bool = False,
             finite: bool = True) -> Any:
    """``x`` as a floating array of its own library: torch tensors keep their device, floating dtype and
    autograd graph (integer tensors become float64); everything else goes through :func:`as_array`.

    Same rejections as :func:`as_array` (booleans, complex, non-finite unless ``finite=False``)."""
    if not is_torch_array(x):
        return as_array(x, name, ndim=ndim, allow_empty=allow_empty, finite=finite)
    import torch

    if x.dtype == torch.bool or x.is_complex():
        raise FairtheoryTypeError(f"{name} must hold real numbers, got a tensor of dtype {x.dtype}")
    _check_device(x, name)
    if not x.is_floating_point():
        x = x.to(torch.float64)
    _shape_ok(tuple(x.shape), name, ndim, allow_empty)
    if finite:
        ok = torch.isfinite(x.detach())
        if not bool(ok.all()):
            _check_finite(~ok.cpu().numpy(), x.detach().cpu().numpy(), name)
    return x


def as_alpha(alpha: Any, p: np.ndarray, name: str = "alpha") -> np.ndarray:
    """Per-client conservatism ``alpha_i in [p_i, 1]`` (002 Sec. 3.1) under the input policy: a real
    scalar (broadcast) or a vector of one entry per client (lists, numpy of any real dtype, torch
    tensors detached); booleans, strings, ragged and non-finite input are rejected naming ``name``
    before :func:`fairtheory._validation.check_alpha` checks the range."""
    from fairtheory._validation import check_alpha

    if isinstance(alpha, (bool, np.bool_, str, bytes)) or alpha is None:
        raise FairtheoryTypeError(f"{name} must be a real number or a vector of them, got {alpha!r}")
    if is_torch_array(alpha) or isinstance(alpha, (list, tuple, np.ndarray)):
        alpha = as_array(alpha, name, ndim=(0, 1))
    return check_alpha(alpha, p, name)
