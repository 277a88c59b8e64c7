"""The peer libraries: what is audited, how each installs and imports, and the pieces their adapters share.

* :data:`PEERS`, :func:`peer_version`, :func:`require`: the audited versions and install commands; a peer
  that does not import makes its claims ``skipped`` with its install command (:func:`needs`, placed under
  ``@claim``, looks the peer up when the claim runs);
* :func:`fedlab_module`: FedLab's ``contrib.algorithm`` modules, imported with torchvision stand-ins;
* :func:`float64_torch`: torch's default dtype float64 for a block (FLGo accumulates in it);
* :func:`attempt`, :func:`err`, :func:`lst`, :func:`note`: calling a peer (its exception is the finding),
  and recording instances and notes;
* ``flgo_*``: minimal FLGo ``Server`` objects holding one-parameter-vector models, fed the given clients'
  replies instead of sampling and communicating (every FLGo adapter of :mod:`.flgo` builds on them).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import logging
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from verify.core import Context, Outcome

__all__ = ["Peer", "PEERS", "peer_version", "require", "needs", "note", "fedlab_module", "float64_torch", "quiet",
           "attempt", "err", "lst", "flgo_model", "flgo_value", "flgo_server", "flgo_feed"]


@dataclass(frozen=True)
class Peer:
    dist: str      # distribution name on PyPI
    module: str    # a module whose import proves the peer usable
    tested: str    # the version audited
    install: str   # how to install it next to the CPU torch of this project


_FLGO_DEPS = "tqdm prettytable ujson nvidia-ml-py pyyaml requests toolz cvxopt"
PEERS: dict[str, Peer] = {
    "sqwash": Peer("sqwash", "sqwash", "0.1.0", "pip install sqwash==0.1.0"),
    "flgo": Peer("flgo", "flgo.algorithm.fedbase", "0.4.4",
                 f"pip install --no-deps flgo==0.4.4 && pip install {_FLGO_DEPS}"),
    "flwr": Peer("flwr", "flwr.serverapp.strategy", "1.41.0", "pip install flwr==1.41.0"),
    "fedlab": Peer("fedlab", "fedlab", "1.3.0",
                   "pip install --no-deps fedlab==1.3.0 && pip install munch tqdm nvidia-ml-py"),
}


def fedlab_module(name: str = "qfedavg") -> Any:
    """``fedlab.contrib.algorithm.<name>``.  FedLab's client package imports its dataset modules, which
    import torchvision at module level; no torchvision wheel on PyPI loads next to the CPU torch here
    (``operator torchvision::nms does not exist``), so when torchvision is absent empty stand-in modules
    are registered for the import only and removed afterwards (no audited code touches them)."""
    try:
        import torchvision  # noqa: F401
        stubs: list[str] = []
    except Exception:
        stubs = [n for n in ("torchvision", "torchvision.transforms", "torchvision.datasets") if n not in sys.modules]
        for n in stubs:
            sys.modules[n] = types.ModuleType(n)
        if "torchvision" in stubs:
            sys.modules["torchvision"].transforms = sys.modules["torchvision.transforms"]  # type: ignore[attr-defined]
            sys.modules["torchvision"].datasets = sys.modules["torchvision.datasets"]  # type: ignore[attr-defined]
    try:
        return importlib.import_module(f"fedlab.contrib.algorithm.{name}")
    finally:
        for n in stubs:
            sys.modules.pop(n, None)


@functools.cache
def peer_version(lib: str) -> str | None:
    """The installed version of peer ``lib`` if it imports, else ``None``."""
    peer = PEERS[lib]
    try:
        if lib == "fedlab":
            fedlab_module()
        else:
            importlib.import_module(peer.module)
        return importlib.metadata.version(peer.dist)
    except Exception:
        return None


def require(lib: str) -> Any:
    """Import and return the peer's top module; raises ``ImportError`` naming the install command."""
    if peer_version(lib) is None:
        raise ImportError(f"{lib} is not installed (or does not import): {PEERS[lib].install}")
    return importlib.import_module(lib)


def needs(lib: str) -> Callable[[Callable[[Context], Outcome]], Callable[[Context], Outcome]]:
    """Decorator (under ``@claim``): the check runs only when peer ``lib`` imports; otherwise the claim is
    ``skipped`` with the peer's install command.  The peer is looked up when the claim runs."""
    def deco(check: Callable[[Context], Outcome]) -> Callable[[Context], Outcome]:
        @functools.wraps(check)
        def run(ctx: Context) -> Outcome:
            if peer_version(lib) is None:
                return Outcome("skipped", note=f"{lib} is not installed: {PEERS[lib].install}")
            return check(ctx)

        return run

    return deco


def note(lib: str) -> str:
    """``"<lib> <installed version>"``, with the audited version when they differ."""
    v = peer_version(lib)
    tested = PEERS[lib].tested
    return f"{lib} {v}" + ("" if v == tested else f" (audited version: {tested})")


@contextlib.contextmanager
def float64_torch() -> Iterator[None]:
    """torch's default dtype float64 inside the block (FLGo accumulates dot products and norms in it)."""
    import torch

    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


@contextlib.contextmanager
def quiet(logger: str) -> Iterator[None]:
    """The logger ``logger`` (e.g. ``"flwr"``) at ``ERROR`` inside the block."""
    lg = logging.getLogger(logger)
    old = lg.level
    lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        lg.setLevel(old)


def attempt(fn: Callable[[], Any]) -> Any:
    """``fn()``, or the exception it raised (the peer's failure is the finding), numpy warnings off."""
    try:
        with np.errstate(all="ignore"):
            return fn()
    except Exception as exc:
        return exc


def err(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


def lst(x: Any) -> Any:
    """``x`` as nested lists of floats (a JSON-ready instance)."""
    return np.asarray(x, dtype=np.float64).tolist()


# ============================================================================ FLGo server objects
@functools.cache
def _flgo_vector_model(d: int) -> type:
    """An FLGo ``FModule`` holding one parameter vector of length ``d`` (FLGo rebuilds models by class)."""
    import torch
    from flgo.utils.fmodule import FModule

    class Vector(FModule):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(d))

    Vector.__name__ = Vector.__qualname__ = f"Vector{d}"
    return Vector


def flgo_model(x: np.ndarray) -> Any:
    """An FLGo model holding the vector ``x``."""
    import torch

    mdl = _flgo_vector_model(int(x.size))()
    with torch.no_grad():
        mdl.w.copy_(torch.as_tensor(x, dtype=mdl.w.dtype))
    return mdl


def flgo_value(mdl: Any) -> np.ndarray:
    return mdl.w.detach().cpu().numpy().astype(np.float64)


def flgo_server(module: Any, model: np.ndarray, **attrs: Any) -> Any:
    """A FLGo ``Server`` with only the attributes its aggregation reads (no task, no clients' data)."""
    S = object.__new__(module.Server)
    S.model = flgo_model(model)
    for k, v in attrs.items():
        setattr(S, k, v)
    return S


def flgo_feed(S: Any, clients: list[int], package: dict[str, Any]) -> None:
    """Replace sampling and communication by the given clients and their replies."""
    S.sample = lambda: list(clients)

    def communicate(selected: list[int], *args: Any, **kwargs: Any) -> dict[str, Any]:
        S.received_clients = list(selected)
        return package

    S.communicate = communicate
