r"""Run a function under hard limits: wall clock, CPU time and address space, in a forked child process.

``run_bounded(fn, *args, seconds=s)`` forks; the child (its own process group) sets

* ``RLIMIT_CPU = ceil(cpu_seconds or seconds) + 1`` seconds (soft = hard: past it the kernel kills it),
* ``RLIMIT_AS = A_0 + memory_bytes`` when ``memory_bytes`` is given, where ``A_0`` is the address space the
  child already has mapped at the fork (``/proc/self/statm``; 0 where it cannot be read): the cap bounds
  what ``fn`` allocates, so a caller that has loaded large libraries (hundreds of MB of mappings) is not
  refused from the first allocation,
* on Linux, death with its parent (``PR_SET_PDEATHSIG = SIGKILL``), so a nested child never outlives a
  killed one,

runs ``fn(*args)`` and sends the pickled outcome through a pipe.  The parent waits on the pipe (it returns as
soon as the child has answered or died, no fixed sleep), SIGKILLs the child's process group past ``seconds``
of wall time, and always reaps the child (no zombie).  Outcomes:

=========================  ================================================================================
``("ok", result)``         ``fn`` returned ``result`` (it must be picklable)
``("timeout", None)``      still running after ``seconds`` (killed)
``("died", exitcode)``     no answer: ``-signal`` (e.g. ``-9`` for the CPU limit's SIGKILL, ``-24`` SIGXCPU)
                           or an exit status; a ``MemoryError`` under the cap exits with status
                           :data:`MEMORY_EXIT` (12, ``ENOMEM``) and counts as death by the memory cap
``("raised", "T: msg")``   ``fn`` raised an exception of type ``T`` (or its result could not be pickled)
=========================  ================================================================================

The child is a plain ``os.fork`` (a multiprocessing ``Process`` refuses to start from a daemonic pool
worker); the pipe is a ``multiprocessing`` fork-context ``Pipe``.  Nested use (from inside such a child, or
from the verify runner's forked claim workers) works.  Forking a process that runs other threads is the
caller's risk (a lock held by another thread stays held in the child); the checker calls this from
single-threaded code.  The start-up cost is that of one ``fork`` (a few ms for a small process, more for
a process with a large resident memory).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import pickle
import resource
import signal
import sys
from collections.abc import Callable
from contextlib import suppress
from typing import Any

__all__ = ["run_bounded"]

#: exit status of a child whose ``fn`` (or the pickling of its result) ran out of memory under the cap
MEMORY_EXIT = 12
_INTERNAL_EXIT = 70  # the child's own machinery failed (never returns into the caller's code)


def _pdeathsig_setter() -> Callable[[], None] | None:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux (looked up once, in the parent), else ``None``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl
        return None
    return lambda: prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG


_SET_PDEATHSIG = _pdeathsig_setter()


def _mapped_bytes() -> int:
    """Address space mapped by this process now (``/proc/self/statm``), 0 where unknown."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _set_limit(which: int, value: int) -> None:
    """``soft = hard = value``, or the current hard limit when that is lower (a child cannot raise it)."""
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):  # a closed or odd stream must not matter here
            stream.flush()


def _describe(exc: BaseException) -> str:
    try:
        msg = str(exc)
    except Exception:  # noqa: BLE001 - a hostile __str__
        msg = "<unprintable>"
    return f"{type(exc).__name__}: {msg}"


def _child(fn: Callable[..., Any], args: tuple[Any, ...], conn: Any, parent: int, cpu: int, memory_bytes: int | None) -> None:
    """Body of the forked child: limits, ``fn(*args)``, the pickled outcome on ``conn``; never returns."""
    with suppress(OSError):  # already a group leader
        os.setpgid(0, 0)
    if _SET_PDEATHSIG is not None:
        _SET_PDEATHSIG()
        if os.getppid() != parent:  # the parent died before prctl: nobody waits for us
            os._exit(_INTERNAL_EXIT)
    _set_limit(resource.RLIMIT_CPU, cpu)
    if memory_bytes is not None:
        _set_limit(resource.RLIMIT_AS, _mapped_bytes() + int(memory_bytes))
    try:
        payload: tuple[str, Any] = ("ok", fn(*args))
    except MemoryError:
        os._exit(MEMORY_EXIT)
    except BaseException as exc:  # noqa: BLE001 - every failure of fn is reported, never propagated
        payload = ("raised", _describe(exc))
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        os._exit(MEMORY_EXIT)
    except BaseException as exc:  # noqa: BLE001 - an unpicklable result
        data = pickle.dumps(("raised", _describe(exc)), protocol=pickle.HIGHEST_PROTOCOL)
    conn.send_bytes(data)
    conn.close()
    _flush_std()
    os._exit(0)


def _reap(pid: int) -> int:
    """Wait for ``pid``; its exit code as multiprocessing reports it (``-signal`` or the exit status)."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:  # pragma: no cover - already reaped (e.g. SIGCHLD set to SIG_IGN)
            return 0
        except InterruptedError:  # pragma: no cover - PEP 475 retries, kept for safety
            continue
        return os.waitstatus_to_exitcode(status)


def _kill_group(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            continue


def run_bounded(fn: Callable[..., Any], *args: Any, seconds: float = 5.0, cpu_seconds: float | None = None,
                memory_bytes: int | None = 2 * 2**30) -> tuple[str, Any]:
    r"""``fn(*args)`` in a forked child under a wall-clock limit ``seconds``, a CPU limit
    ``ceil(cpu_seconds or seconds) + 1`` s and an address-space cap of ``memory_bytes`` beyond what is mapped
    at the fork (``None``: no cap).  Returns ``("ok", result)``, ``("timeout", None)``,
    ``("died", exitcode)`` or ``("raised", "TypeName: message")`` (module doc)."""
    if not (isinstance(seconds, int | float) and 0 < seconds < math.inf):
        raise ValueError(f"seconds must be a positive finite number, not {seconds!r}")
    if cpu_seconds is not None and not (isinstance(cpu_seconds, int | float) and 0 < cpu_seconds < math.inf):
        raise ValueError(f"cpu_seconds must be a positive finite number or None, not {cpu_seconds!r}")
    if memory_bytes is not None and not (isinstance(memory_bytes, int) and memory_bytes > 0):
        raise ValueError(f"memory_bytes must be a positive int or None, not {memory_bytes!r}")
    cpu = math.ceil(cpu_seconds or seconds) + 1
    recv, send = multiprocessing.get_context("fork").Pipe(duplex=False)
    _flush_std()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child (coverage does not follow os._exit)
        try:
            recv.close()
            _child(fn, args, send, parent, cpu, memory_bytes)
        finally:
            os._exit(_INTERNAL_EXIT)
    send.close()
    with suppress(OSError):  # also here, so that a kill right after the fork reaches the group
        os.setpgid(pid, pid)
    try:
        if not recv.poll(seconds):  # True on data and on EOF (the child died)
            _kill_group(pid)
            _reap(pid)
            return "timeout", None
        try:
            data = recv.recv_bytes()
        except (EOFError, OSError):
            return "died", _reap(pid)
        code = _reap(pid)
        try:
            return pickle.loads(data)
        except Exception as exc:  # noqa: BLE001 - a result that does not unpickle here
            return "raised", f"{_describe(exc)} (exit code {code})"
    except BaseException:  # interrupted (Ctrl-C): leave nothing running
        _kill_group(pid)
        _reap(pid)
        raise
    finally:
        recv.close()
