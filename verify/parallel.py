"""Executors for the verification suite: serial, local processes, or a Ray cluster.

The runner hands out two kinds of tasks, identical under every executor:

* a whole claim - ``run_claim_task(claim_id, quick, seed)`` in a worker, returning its
  :class:`~verify.core.ClaimResult`;
* the instances of a *chunked* claim (registered with ``@claim(..., chunked=True)``): the claim runs in
  the main process and its ``ctx.map(fn, items)`` sends the items to the workers in order-preserving
  chunks.

Every instance is seeded by ``(seed, claim, index)`` through :meth:`verify.core.Context.rng` and results
are merged in a fixed order, so the report (statuses and measured values) is the same as a serial run
with the same seed; only the timings differ.  Workers load the same claim modules as the main process
(built-ins, ``--plugin`` modules and, unless disabled, entry points) and ignore SIGINT: the main process
alone handles an interrupt and saves what finished.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from typing import Any

__all__ = ["SerialExecutor", "ProcessExecutor", "RayExecutor", "make_executor", "run_claim_task", "worker_count"]

#: claim modules the workers must load: (plugins, load entry points)
_WORKER_SETUP: tuple[tuple[str, ...], bool] = ((), True)


def worker_count(text: str) -> int:
    """``--workers`` value: a positive integer or ``auto`` (the CPU count)."""
    if text == "auto":
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"must be a positive integer or 'auto', got {text!r}") from None
    if n < 1:
        raise ValueError(f"must be a positive integer or 'auto', got {n}")
    return n


def _init_worker(plugins: Sequence[str], entry_points: bool) -> None:
    """Process-pool initializer: leave SIGINT to the main process, one BLAS/torch thread per worker (the
    workers are the parallelism; nested thread pools would oversubscribe the cores), load the claims."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _single_threaded()
    _load(plugins, entry_points)


def _single_threaded() -> None:
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        pass
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _load(plugins: Sequence[str], entry_points: bool) -> None:
    from verify.plugins import load_builtin, load_entry_points, load_plugins

    load_builtin()
    if entry_points:
        load_entry_points()
    load_plugins(list(plugins))


def run_claim_task(claim_id: str, quick: bool, seed: int) -> Any:
    """Run one claim in a worker (serially inside it) and return its result."""
    from verify.core import Context, run_claim

    return run_claim(claim_id, Context(quick=quick, seed=seed))


def _apply_chunk(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    return [fn(x) for x in items]


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


class SerialExecutor:
    """Everything in the calling process (the default, ``--workers 1``)."""

    workers = 1

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        try:
            fut.set_result(fn(*args))
        except BaseException as exc:  # delivered through the future, as a pool would
            fut.set_exception(exc)
        return fut

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        return [fn(x) for x in items]

    def shutdown(self) -> None:
        return None


class ProcessExecutor:
    """``workers`` local processes (``fork`` where available, else ``spawn``)."""

    def __init__(self, workers: int, plugins: Sequence[str] = (), entry_points: bool = True) -> None:
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        self.workers = workers
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                                         initializer=_init_worker, initargs=(tuple(plugins), entry_points))
        # start every worker now, while the caller has no other threads: the pool forks workers on demand,
        # and a fork while another thread of this process holds a lock (e.g. the import lock of a chunked
        # claim running beside the pool) can leave the child deadlocked
        wait([self._pool.submit(time.sleep, 0.2) for _ in range(workers)])

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        return self._pool.submit(fn, *args)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        seq = list(items)
        size = max(1, -(-len(seq) // (4 * self.workers)))  # ~4 chunks per worker, in order
        out: list[Any] = []
        for part in self._pool.map(_apply_chunk, [fn] * len(_chunks(seq, size)), _chunks(seq, size)):
            out.extend(part)
        return out

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class RayExecutor:
    """Tasks on Ray: ``ray.init()`` locally (``num_cpus=workers``) or attached to ``address``."""

    def __init__(self, workers: int | None, address: str | None, plugins: Sequence[str] = (),
                 entry_points: bool = True) -> None:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError("the Ray executor needs ray: pip install -e '.[ray]'") from exc
        self._ray = ray
        if not ray.is_initialized():
            kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "ignore_reinit_error": True}
            if address:
                kw["address"] = address
            elif workers:
                kw["num_cpus"] = workers
            here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            kw["runtime_env"] = {"env_vars": {"PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}}
            ray.init(**kw)
        self.workers = int(ray.cluster_resources().get("CPU", workers or 1))
        setup = (tuple(plugins), entry_points)
        # plugin files are imported under generated module names the workers cannot import before the
        # task runs: send their functions by value
        from ray import cloudpickle

        for name, mod in list(sys.modules.items()):
            if name.startswith("fairtheory_plugin_") and mod is not None:
                cloudpickle.register_pickle_by_value(mod)

        @ray.remote
        def call(fn: Callable[..., Any], *args: Any) -> Any:
            _single_threaded()
            _load(*setup)
            return fn(*args)

        self._call = call

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        return self._call.remote(fn, *args).future()

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        seq = list(items)
        size = max(1, -(-len(seq) // (4 * self.workers)))
        refs = [self._call.remote(_apply_chunk, fn, part) for part in _chunks(seq, size)]
        out: list[Any] = []
        for part in self._ray.get(refs):
            out.extend(part)
        return out

    def shutdown(self) -> None:
        return None


def make_executor(kind: str, workers: int, *, address: str | None = None, plugins: Sequence[str] = (),
                  entry_points: bool = True) -> SerialExecutor | ProcessExecutor | RayExecutor:
    """The executor for ``--executor kind --workers workers``."""
    if kind == "ray":
        return RayExecutor(workers, address, plugins, entry_points)
    if kind != "process":
        raise ValueError(f"executor must be 'process' or 'ray', got {kind!r}")
    if workers == 1:
        return SerialExecutor()
    return ProcessExecutor(workers, plugins, entry_points)
