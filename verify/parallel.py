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
import pickle
import select
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from typing import Any

__all__ = ["SerialExecutor", "ProcessExecutor", "RayExecutor", "ConnectError", "make_executor", "run_claim_task",
           "run_claim_isolated", "ClaimWorker", "worker_count", "available_cores", "MAX_WORKERS", "RAY_CONNECT_TIMEOUT"]

#: the largest ``--workers`` value accepted at all (larger is refused; values above the core count are capped)
MAX_WORKERS = 1024

#: seconds allowed to reach a Ray cluster (TCP probe) and for ``ray.init`` to return
RAY_CONNECT_TIMEOUT = 60.0
RAY_PROBE_TIMEOUT = 5.0


class ConnectError(RuntimeError):
    """The Ray cluster at ``--address`` could not be reached (the runner exits 2 with this message)."""

#: claim modules the workers must load: (plugins, load entry points)
_WORKER_SETUP: tuple[tuple[str, ...], bool] = ((), True)


def available_cores() -> int:
    """CPU cores this process may run on (the affinity mask where the OS has one)."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def worker_count(text: str) -> int:
    """``--workers`` value: an integer in ``[1, MAX_WORKERS]`` or ``auto`` (the core count).

    Values above the core count are accepted here and capped by the runner (local processes cannot use
    more); values above :data:`MAX_WORKERS` are refused."""
    if text == "auto":
        return available_cores()
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"must be a positive integer or 'auto', got {text!r}") from None
    if n < 1:
        raise ValueError(f"must be a positive integer or 'auto', got {n}")
    if n > MAX_WORKERS:
        raise ValueError(f"must be at most {MAX_WORKERS} (this machine has {available_cores()} cores), got {n}")
    return n


def _init_worker(plugins: Sequence[str], entry_points: bool) -> None:
    """Process-pool initializer: leave SIGINT to the main process, one BLAS/torch thread per worker (the
    workers are the parallelism; nested thread pools would oversubscribe the cores), load the claims."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _close_checker_pipes()
    _single_threaded()
    _load(plugins, entry_points)


def _close_checker_pipes() -> None:
    """A worker forked from the runner drops the runner's pipes to its fresh-interpreter checker
    (:func:`fairtheory.proofs.recheck.close_inherited`): claim code in the worker cannot talk to it."""
    rc = sys.modules.get("fairtheory.proofs.recheck")
    if rc is not None:
        rc.close_inherited()


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


def run_claim_task(claim_id: str, quick: bool, seed: int, timeout: float | None = None) -> Any:
    """Run one claim in a worker (serially inside it) and return its result; with ``timeout``, in this
    process's :class:`ClaimWorker` (a persistent forked child, killed and replaced past ``timeout`` s)."""
    if timeout is not None and hasattr(os, "fork"):
        global _WORKER
        if _WORKER is None:
            _WORKER = ClaimWorker()
        return _WORKER.run(claim_id, quick, seed, timeout)
    from verify.core import Context, run_claim

    return run_claim(claim_id, Context(quick=quick, seed=seed))


class ClaimWorker:
    """A forked child process that runs claims one after another, with a wall-clock limit per claim.

    The child (its own process group) is forked on first use and kept: claims run in it as they would
    in this process (imports and caches warm up once).  It receives ``(claim_id, quick, seed)`` and
    sends back the pickled :class:`~verify.core.ClaimResult` through pipes.  Past the limit the whole
    group is killed with SIGKILL - this stops a claim stuck inside a C extension too, which a signal
    handler in the same process could not - the claim is reported as ``error: timed out after N s`` and
    the next claim gets a fresh child.  A child that dies without a result (killed by the OS for memory,
    a crash in native code) is reported as ``error`` with its exit status.  Fork from a process that has
    loaded the claim modules and runs no other threads (the runner's main process, a pool or Ray worker)."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self._req = self._res = -1

    def _spawn(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed or odd stream must not stop the run
                pass
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child (coverage does not follow os._exit)
            os.close(req_w)
            os.close(res_r)
            _close_checker_pipes()
            _serve(req_r, res_w)
        os.close(req_r)
        os.close(res_w)
        try:
            os.setpgid(pid, pid)  # also here, so that a kill right after the fork reaches the group
        except OSError:
            pass
        self.pid, self._req, self._res = pid, req_w, res_r

    def run(self, claim_id: str, quick: bool, seed: int, timeout: float) -> Any:
        """The claim's result, or an ``error`` row when it timed out or its process died."""
        from verify.core import error_result

        if self.pid is None:
            self._spawn()
        t0 = time.perf_counter()
        try:
            try:
                _send(self._req, pickle.dumps((claim_id, quick, seed)))
            except BrokenPipeError:  # the idle child died (e.g. the OOM killer): a fresh one runs the claim
                self.close(kill=True)
                self._spawn()
                _send(self._req, pickle.dumps((claim_id, quick, seed)))
            data = _recv(self._res, time.monotonic() + timeout)
        except BaseException:  # interrupted (Ctrl-C): leave nothing running
            self.close(kill=True)
            raise
        secs = time.perf_counter() - t0
        if data is None:
            self.close(kill=True)
            return error_result(claim_id, f"timed out after {_secs(timeout)} s (killed; --timeout)", secs,
                                {"timeout_s": timeout})
        if not data:
            status = self.close(kill=True)
            return error_result(claim_id, f"the process running the claim died without a result ({status}; "
                                "out of memory or a crash in native code?)", secs)
        return pickle.loads(data)

    def close(self, kill: bool = False) -> str:
        """End the child (kill it when ``kill``); returns how it ended, e.g. ``"exit code 0"``."""
        if self.pid is None:
            return "not running"
        pid, self.pid = self.pid, None
        for fd in (self._req, self._res):
            try:
                os.close(fd)
            except OSError:
                pass
        if kill:
            _kill_group(pid)
        _, status = os.waitpid(pid, 0)
        return f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit code {os.WEXITSTATUS(status)}"


#: the :class:`ClaimWorker` of this process (pool and Ray workers), created on first use
_WORKER: ClaimWorker | None = None


def run_claim_isolated(claim_id: str, quick: bool, seed: int, timeout: float) -> Any:
    """Run one claim in a fresh forked child with a time limit (a one-shot :class:`ClaimWorker`)."""
    worker = ClaimWorker()
    try:
        return worker.run(claim_id, quick, seed, timeout)
    finally:
        worker.close()


def _send(fd: int, payload: bytes) -> None:
    view = memoryview(len(payload).to_bytes(8, "little") + payload)
    while view:
        view = view[os.write(fd, view):]


def _recv(fd: int, deadline: float | None) -> bytes | None:
    """One length-prefixed message; ``b""`` when the pipe closed first, ``None`` past ``deadline``."""
    buf = bytearray()
    need = 8
    while len(buf) < need:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
        chunk = os.read(fd, min(1 << 20, need - len(buf)))
        if not chunk:
            return b""
        buf += chunk
        if need == 8 and len(buf) == 8:
            need = 8 + int.from_bytes(buf[:8], "little")
    return bytes(buf[8:])


def _serve(req: int, res: int) -> None:  # pragma: no cover - in the child
    code = 0
    try:
        parent = os.getppid()
        os.setpgid(0, 0)  # its own group: a timeout kills what the claim started too
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent alone handles Ctrl-C
        _die_with_parent(parent)
        from verify.core import Context, error_result, run_claim

        while True:
            msg = _recv(req, None)
            if not msg:
                break
            claim_id, quick, seed = pickle.loads(msg)
            try:
                data = pickle.dumps(run_claim(claim_id, Context(quick=quick, seed=seed)))
            except BaseException as exc:  # noqa: BLE001 - e.g. SystemExit or an unpicklable result: report it
                data = pickle.dumps(error_result(claim_id, f"{type(exc).__name__}: {exc}", 0.0,
                                                 {"traceback": traceback.format_exc(limit=8)}))
            _send(res, data)
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:  # noqa: BLE001
                    pass
    except BaseException:  # noqa: BLE001 - the parent sees the pipe close and reports it
        code = 1
    finally:
        os._exit(code)


def _die_with_parent(parent: int) -> None:  # pragma: no cover - in the child
    """Linux: SIGKILL this process when its parent dies (a runner killed with SIGKILL leaves no claim
    running in its own process group); elsewhere nothing (the child then ends after its current claim)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux, or no prctl
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _kill_group(pid: int) -> None:
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
            return
        except (ProcessLookupError, PermissionError):
            continue


def _secs(x: float) -> str:
    return f"{x:g}"


def _apply_chunk(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    return [fn(x) for x in items]


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


class SerialExecutor:
    """Everything in the calling process (the default, ``--workers 1``)."""

    workers = 1

    def cancel(self, fut: Future[Any]) -> None:
        return None

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

    def cancel(self, fut: Future[Any]) -> None:
        """Whole claims enforce their time limit inside the worker (:func:`run_claim_isolated`)."""
        fut.cancel()

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
        self._refs: dict[Future[Any], Any] = {}
        if not ray.is_initialized():
            kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "ignore_reinit_error": True}
            if address:
                kw["address"] = address
            elif workers:
                kw["num_cpus"] = workers
            here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            kw["runtime_env"] = {"env_vars": {"PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}}
            if address:  # a cluster: probe it, then connect with a time limit (ray.init alone can hang)
                probe_ray_address(address)
                _init_with_timeout(ray, kw, address)
            else:
                try:
                    ray.init(**kw)
                except Exception as exc:  # noqa: BLE001 - one line for the user, exit 2
                    raise ConnectError(f"could not start a local Ray instance: {type(exc).__name__}: "
                                       f"{' '.join(str(exc).split())[:300]}") from None
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
        ref = self._call.remote(fn, *args)
        fut = ref.future()
        self._refs[fut] = ref
        return fut

    def cancel(self, fut: Future[Any]) -> None:
        """Stop the task behind ``fut`` (its worker process is killed: ``ray.cancel(force=True)``)."""
        ref = self._refs.pop(fut, None)
        if ref is not None:
            try:
                self._ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - the task may have ended meanwhile
                pass

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


def probe_ray_address(address: str, timeout: float = RAY_PROBE_TIMEOUT) -> None:
    """Open (and close) a TCP connection to the ``host:port`` of ``address`` within ``timeout`` seconds.

    ``address`` is ``host:port`` or ``ray://host:port`` (Ray Client); ``auto`` and ``local`` are left to
    Ray.  Raises :class:`ConnectError` saying why the address cannot be reached: a malformed address, a
    name that does not resolve, a refused or timed-out connection."""
    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[1] if "://" in address else address
    host, sep, port_text = hostport.rstrip("/").rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ConnectError(f"--address {address!r} is not host:port or ray://host:port")
    try:
        with socket.create_connection((host, int(port_text)), timeout=timeout):
            pass
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc) or type(exc).__name__)
        raise ConnectError(f"cannot reach the Ray cluster at {address!r}: {reason}") from None


def _init_with_timeout(ray: Any, kw: dict[str, Any], address: str | None,
                       timeout: float = RAY_CONNECT_TIMEOUT) -> None:
    """``ray.init(**kw)`` in a helper thread; :class:`ConnectError` when it fails or takes over ``timeout`` s."""
    box: dict[str, BaseException | None] = {}

    def init() -> None:
        try:
            ray.init(**kw)
            box["error"] = None
        except BaseException as exc:  # noqa: BLE001 - reported in the caller's thread
            box["error"] = exc

    where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
    th = threading.Thread(target=init, name="ray-init", daemon=True)
    th.start()
    th.join(timeout)
    if th.is_alive():
        raise ConnectError(f"could not connect to {where} within {timeout:g} s")
    err = box.get("error")
    if err is not None:
        msg = " ".join(str(err).split())[:300] or type(err).__name__
        raise ConnectError(f"could not connect to {where}: {type(err).__name__}: {msg}")


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
