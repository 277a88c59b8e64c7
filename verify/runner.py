"""``python -m verify``: run the claim catalogue (and your plugins) and report measured vs bound.

Options: ``--only PATTERN`` (fnmatch, repeatable or comma-separated), ``--peers`` (the peer-library
audit family), ``--list``, ``--quick`` (default) / ``--full``, ``--json PATH``, ``--markdown PATH`` (default
``reports/verify.json`` and ``reports/verify.md``; with ``--plugin``, ``reports/verify-<plugin>.json`` and ``.md``, so
that a plugin run never overwrites the main report), ``--no-json``/``--no-markdown``, ``--seed N``, ``--strict``,
``--plugin MODULE_OR_PATH`` (repeatable;
a dotted module or a ``.py`` file), ``--no-entry-points`` (ignore installed ``fairtheory.claims`` entry
points), ``--debug`` (the traceback of a plugin that fails to import), ``--workers N|auto`` with
``--executor process|ray`` and ``--address ADDR`` (parallel runs: the same report as a serial run, see
:mod:`verify.parallel`), ``--timeout SECONDS`` (per claim;
default 600 s quick, 1800 s full; a claim past it is ``error: timed out`` and the run goes on).
``--workers`` above the core count is capped at it (one line on stderr; not with ``--executor ray
--address``, where the cluster decides), above 1024 refused.

Statuses: ``proved`` (an exact certificate the runner re-checked), ``verified``, ``refuted``,
``inconclusive``, ``skipped``, ``not implemented``, ``error``.  Exit status 1 when a claim's status differs
from its expectation (``proved`` satisfies an expected ``verified``), a check errors or a claim module
fails to import, or a report could not be written (``--strict`` also counts ``not implemented``); 2 for
bad arguments - among them a ``--plugin`` that is missing, fails to import (``--debug`` adds its traceback)
or registers no claim, and ``--only`` patterns that match no claim id -, an unwritable report path or an
unreachable Ray cluster (one line ``python -m verify: error: ...``, before any claim runs); 130 when
interrupted.  Reports are rewritten atomically after every claim, so an interrupted run
keeps every claim that finished.  The last lines printed say where the reports are and what the exit status means
(:func:`verify.console.closing_lines`).
"""

from __future__ import annotations

import argparse
import fnmatch
import math
import os
import platform
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from fairtheory.proofs.recheck import FreshChecker
from verify.console import closing_lines, console_width, print_results
from verify.console import progress_line as progress_line
from verify.core import REGISTRY, ClaimResult, Context, all_ids, error_result, run_claim
from verify.parallel import ClaimWorker, SerialExecutor, available_cores, make_executor, run_claim_task
from verify.plugins import (
    builtin_claim_ids,
    claims_of,
    has_entry_points,
    load_builtin,
    load_entry_points,
    load_plugin,
    plugin_failure,
    plugin_problem,
)
from verify.report import (
    atomic_write,
    fmt,
    margin_text,
    row_numbers,
    status_text,
    to_json,
    to_markdown,
)

STYLE = {"proved": "bold green", "verified": "green", "refuted": "red", "inconclusive": "yellow", "skipped": "cyan",
         "not implemented": "dim", "error": "bold red"}


def select(patterns: Sequence[str] | None, ids: Sequence[str] | None = None) -> list[str]:
    """The ids (default: every known claim) matching any fnmatch pattern (all when none given)."""
    ids = list(all_ids() if ids is None else ids)
    if not patterns:
        return ids
    pats = [p.strip() for spec in patterns for p in spec.split(",") if p.strip()]
    return [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in pats)]


def _seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {v}")
    return v


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line on stderr (``python -m verify: error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


class _BadArgument(Exception):
    """A bad argument found after parsing (a plugin, an ``--only`` pattern): :func:`main` writes it in the
    parser's one-line form and returns 2, before any claim runs."""


def _usage_error(ap: argparse.ArgumentParser, message: str) -> int:
    sys.stderr.write(f"{ap.prog}: error: {' '.join(message.split())}\n")
    return 2


def _no_match(only: Sequence[str]) -> str:
    return f"--only: no claim id matches {', '.join(repr(p) for p in only)} (see python -m verify --list)"


def _load_plugins(specs: Sequence[str], debug: bool, builtin: frozenset[str]) -> None:
    """Import every ``--plugin``; one that raises, registers no claim or registers one of the ``builtin`` ids
    (which the built-in modules, loaded afterwards, register) is a :class:`_BadArgument`."""
    for spec in specs:
        before = set(REGISTRY)
        try:
            module = load_plugin(spec)
        except Exception as exc:  # noqa: BLE001 - any failure of a user module is reported in one line
            if debug:
                import traceback

                traceback.print_exc(file=sys.stderr)
            raise _BadArgument(plugin_failure(spec, exc)) from None
        mine = claims_of(module, before)
        if not mine:
            raise _BadArgument(f"plugin {spec!r} registered no claim (a claim module registers its claims with "
                               "@verify.claim when imported)")
        taken = [cid for cid in mine if cid in builtin and REGISTRY[cid].source != "built-in"]
        if taken:
            raise _BadArgument(f"plugin {spec!r} registers {', '.join(map(repr, taken))}, the id of a built-in claim; "
                               "choose another id")


#: default per-claim time limit in seconds: (quick, full)
DEFAULT_TIMEOUT = (600.0, 1800.0)


def _timeout(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0 (0: no limit), got {text!r}") from None
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0 (0: no limit), got {text!r}")
    return v


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="python -m verify", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", metavar="PATTERN",
                    help="run claims whose id matches this fnmatch pattern (e.g. 'rcfl.*')")
    ap.add_argument("--list", action="store_true", help="list claim ids, citations and implementation state")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="quick", action="store_true", default=True, help="CI-sized run (default)")
    mode.add_argument("--full", dest="quick", action="store_false", help="exhaustive run")
    ap.add_argument("--json", metavar="PATH", default=argparse.SUPPRESS,
                    help=f"JSON report path (default {DEFAULT_REPORT}.json; with --plugin {DEFAULT_REPORT}-<plugin>.json)")
    ap.add_argument("--markdown", metavar="PATH", default=argparse.SUPPRESS,
                    help=f"Markdown report path (default {DEFAULT_REPORT}.md; with --plugin {DEFAULT_REPORT}-<plugin>.md)")
    ap.add_argument("--no-json", dest="json", action="store_const", const=None, default=argparse.SUPPRESS,
                    help="write no JSON report")
    ap.add_argument("--no-markdown", dest="markdown", action="store_const", const=None, default=argparse.SUPPRESS,
                    help="write no Markdown report")
    ap.add_argument("--seed", type=_seed, default=0, help="master seed, an integer >= 0 (default 0)")
    ap.add_argument("--strict", action="store_true", help="also fail on claims not implemented")
    ap.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_PATH",
                    help="load claims from a dotted module or a .py file (repeatable); one that is missing, "
                         "fails to import or registers no claim exits 2")
    ap.add_argument("--debug", action="store_true",
                    help="print the traceback of a plugin that fails to import")
    ap.add_argument("--no-entry-points", action="store_true",
                    help="do not load installed 'fairtheory.claims' entry points")
    ap.add_argument("--peers", action="store_true",
                    help="run the peer-library audit family (peers.*; same as --only 'peers.*')")
    ap.add_argument("--workers", type=_workers, default=1, metavar="N",
                    help="run claims (and instance chunks of chunked claims) on N workers; 'auto' = CPU count")
    ap.add_argument("--executor", choices=("process", "ray"), default="process",
                    help="local processes (default) or Ray (pip install -e '.[ray]')")
    ap.add_argument("--address", default=None, metavar="ADDR",
                    help="Ray cluster address to attach to (default: start Ray locally); an unreachable one "
                         "exits 2")
    ap.add_argument("--timeout", type=_timeout, default=None, metavar="SECONDS",
                    help=f"time limit per claim; a claim past it is 'error: timed out' and the run goes on "
                         f"(default {DEFAULT_TIMEOUT[0]:g} s with --quick, {DEFAULT_TIMEOUT[1]:g} s with --full; 0: no "
                         "limit, claims then run in this process when serial)")
    return ap


#: the reports' path without suffix when neither ``--json``/``--markdown`` nor ``--plugin`` says otherwise
DEFAULT_REPORT = "reports/verify"


def default_report(plugins: Sequence[str], suffix: str) -> str:
    """The default report path: ``reports/verify<suffix>``, or for a run with plugins ``reports/verify-<names><suffix>``
    (each plugin's file stem or dotted name, joined by ``+``), so that a plugin run never overwrites the main report."""
    if not plugins:
        return DEFAULT_REPORT + suffix
    names = [Path(p).stem if p.endswith(".py") else p for p in plugins]
    tag = "+".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", n).strip("._") or "plugin" for n in names)
    return f"{DEFAULT_REPORT}-{tag[:80]}{suffix}"


def _workers(text: str) -> int:
    from verify.parallel import worker_count

    try:
        return worker_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _check_writable(ap: argparse.ArgumentParser, option: str, path: str) -> None:
    """Exit 2 (usage error) unless a report can be written at ``path``.

    Checked by doing what :func:`verify.report.atomic_write` does, up front: create the folders, create
    (then remove) a temporary file beside the target.  Permission bits alone do not tell (root ignores
    them; ``/proc`` refuses files whatever they say)."""
    if not path.strip():
        ap.error(f"{option} needs a file path, got an empty string")
    target = Path(path)
    if target.is_dir():
        ap.error(f"{option} {path!r} is a directory, not a file")
    if target.exists() and not target.is_file():
        ap.error(f"{option} {path!r} exists and is not a regular file")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".probe")
        try:
            os.write(fd, b"{}")
        finally:
            os.close(fd)
            os.unlink(tmp)
    except OSError as exc:
        ap.error(f"{option} {path!r} is not writable: {exc.strerror or exc}")
    if target.exists() and not os.access(target, os.W_OK) and not os.access(target.parent, os.W_OK):
        ap.error(f"{option} {path!r} is not writable")


def _styled(status: str, text: str) -> str:
    """``text`` (escaped: plugin text is never markup) in the colour of ``status``."""
    style = STYLE.get(status)
    return f"[{style}]{escape(text)}[/]" if style else escape(text)


def results_table(results: Sequence[ClaimResult]) -> Table:
    """The final table.  A refuted row prints its counterexample's own numbers (``of`` = ``cx``), other rows the
    instance with the smallest margin (``worst``; ``tight`` the largest ratio over the instances); see
    :func:`verify.report.row_numbers`."""
    t = Table(title="fairtheory claims", show_lines=False)
    # ids and numbers are read whole; citation and status fold when the console is narrow
    for col in ("id", "citation", "status", "measured", "rel", "bound", "margin", "error/tol", "tight", "adv", "worst",
                "of", "n", "s"):
        t.add_column(col, overflow="fold", no_wrap=col not in ("citation", "status"))
    for r in results:
        row = row_numbers(r)
        st = status_text(r) if r.as_expected else f"{r.status} (expected {r.expected})"
        errtol = f"{fmt(row.error)}/{fmt(row.tolerance)}" if row.tolerance is not None else "-"
        t.add_row(escape(r.id), escape(r.citation), _styled(r.status, st), fmt(row.measured),
                  escape(r.relation or "-"), fmt(row.bound), margin_text(row), errtol, fmt(row.tightness),
                  fmt(r.adversarial), fmt(r.worstcase), _OF.get(row.numbers_of, "-"), str(r.instances),
                  f"{r.seconds:.1f}")
    return t


#: the ``of`` column of the console table (which instance a row's numbers belong to)
_OF = {"counterexample": "cx", "worst margin": "worst"}


def _previous_seconds(path: str | None) -> dict[str, float]:
    """Per-claim seconds of an earlier report at ``path`` (empty when there is none or it is unreadable)."""
    import json

    try:
        doc = json.loads(Path(path).read_text()) if path else {}
        return {r["id"]: float(r["seconds"]) for r in doc.get("claims", [])}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _run_all(ids: Sequence[str], args: argparse.Namespace, executor: Any,
             finished: Callable[[ClaimResult], None]) -> None:
    """Run every claim; ``finished`` is called in the main thread as each one ends.

    Serial: in id order, in a :class:`~verify.parallel.ClaimWorker` (a persistent forked child, killed
    and replaced when a claim passes ``args.timeout``; in this process when the limit is off).  With
    workers: whole claims are submitted to the executor (each process or Ray worker runs them in its own
    ClaimWorker, timed from when the claim starts, :func:`verify.parallel.run_claim_task`); chunked
    claims run in a helper thread of the main process and spread their instances over the same workers
    (past the limit they are reported and abandoned: their next ``ctx.map`` raises).  A task that ends
    in an exception (a worker died, a result did not pickle) is that claim's ``error``."""
    timeout = args.timeout or None
    if isinstance(executor, SerialExecutor):
        if timeout is None or not hasattr(os, "fork"):
            for cid in ids:
                finished(run_claim(cid, Context(quick=args.quick, seed=args.seed)))
            return
        worker = ClaimWorker()  # forked now, after every claim module is loaded; replaced after a timeout
        try:
            for cid in ids:
                finished(worker.run(cid, args.quick, args.seed, timeout))
        finally:
            worker.close(kill=True)
        return
    chunked = [i for i in ids if i in REGISTRY and REGISTRY[i].chunked]
    # longest first (timings of the previous report at --json, when there is one), so that a long claim
    # does not start last on an otherwise idle pool; the report keeps the id order whatever runs first
    hint = _previous_seconds(args.json)
    pending = [i for i in sorted(ids, key=lambda i: -hint.get(i, 0.0)) if i not in chunked]
    running: dict[Future[Any], str] = {}
    #: futures whose time limit this loop enforces (Ray tasks, chunked claims), with their deadline
    deadlines: dict[Future[Any], float] = {}
    started: dict[Future[Any], float] = {}
    # process and Ray workers fork each whole claim and kill it past the limit themselves (the clock starts
    # when the claim starts, not while it waits in a queue); this loop enforces it for chunked claims
    inner_limit = True
    stop_flags: dict[Future[Any], threading.Event] = {}

    def refill() -> None:
        # at most one queued whole claim per worker: instance chunks of a chunked claim, submitted meanwhile
        # by the helper thread, are then served before the remaining whole claims (the pool is FIFO)
        while pending and sum(1 for f in running if running[f] not in chunked and not f.done()) < executor.workers:
            cid = pending.pop(0)
            fut = executor.submit(run_claim_task, cid, args.quick, args.seed, timeout if inner_limit else None)
            running[fut] = cid
            started[fut] = time.monotonic()
            if timeout and not inner_limit:
                deadlines[fut] = started[fut] + timeout

    for cid in chunked:
        fut, stop = _start_chunked(cid, args, executor)
        running[fut] = cid
        started[fut] = time.monotonic()
        stop_flags[fut] = stop
        if timeout:
            deadlines[fut] = started[fut] + timeout
    refill()
    while running:
        wait_s = max(0.0, min(deadlines[f] for f in running if f in deadlines) - time.monotonic()) \
            if any(f in deadlines for f in running) else None
        done, _ = wait(running, timeout=wait_s, return_when=FIRST_COMPLETED)
        for fut in done:
            cid = running.pop(fut)
            deadlines.pop(fut, None)
            try:
                res = fut.result()
            except BaseException as exc:  # noqa: BLE001 - a lost task is that claim's error, the run goes on
                if isinstance(exc, KeyboardInterrupt):
                    raise
                res = error_result(cid, f"the task running the claim failed: {type(exc).__name__}: {exc}",
                                   time.monotonic() - started[fut])
            finished(res)
        now = time.monotonic()
        for fut in [f for f in running if f in deadlines and deadlines[f] <= now and not f.done()]:
            cid = running.pop(fut)
            deadlines.pop(fut)
            if fut in stop_flags:
                stop_flags[fut].set()
            else:
                executor.cancel(fut)
            finished(error_result(cid, f"timed out after {timeout:g} s (--timeout; "
                                  + ("abandoned: its next ctx.map call stops it)" if fut in stop_flags
                                     else "cancelled)"), now - started[fut], {"timeout_s": timeout}))
        refill()


class _Stoppable:
    """The executor as a chunked claim sees it: ``map`` raises once the claim's time limit has passed."""

    def __init__(self, executor: Any, stop: threading.Event) -> None:
        self._executor, self._stop = executor, stop
        self.workers = executor.workers

    def map(self, fn: Callable[[Any], Any], items: Any) -> list[Any]:
        if self._stop.is_set():
            raise TimeoutError("the claim's time limit passed (--timeout)")
        return self._executor.map(fn, items)


def _start_chunked(cid: str, args: argparse.Namespace, executor: Any) -> tuple[Future[Any], threading.Event]:
    """Run chunked claim ``cid`` in a daemon thread of this process (so that an abandoned one never
    blocks the exit); its ``ctx.map`` goes to ``executor``."""
    fut: Future[Any] = Future()
    stop = threading.Event()
    ctx = Context(quick=args.quick, seed=args.seed, executor=_Stoppable(executor, stop))

    def body() -> None:
        try:
            res = run_claim(cid, ctx)
        except BaseException as exc:  # noqa: BLE001 - delivered through the future
            if fut.set_running_or_notify_cancel():
                fut.set_exception(exc)
            return
        if fut.set_running_or_notify_cancel():
            fut.set_result(res)

    threading.Thread(target=body, name=f"chunked-{cid}", daemon=True).start()
    return fut, stop


def fresh_gate(r: ClaimResult, checker: FreshChecker | None) -> ClaimResult:
    """A ``proved`` row stays ``proved`` only when a fresh interpreter agrees.

    The claim worker re-checked the certificates and bound them to the frozen declared statements
    (:func:`verify.core.bind_statement`, ``details["declared_statements"]``) in a process a plugin may have
    patched; ``checker`` (:class:`fairtheory.proofs.recheck.FreshChecker`, started before any plugin) decides again
    from the row's JSON alone - certificates, declared statements, implication, the printed words - and tries to
    refute each certificate's statement numerically (:mod:`fairtheory.proofs.falsify`).  The words printed are the
    ones it generated.  Any failure makes the row ``error`` with the reason; its time counts in the row's seconds
    (``details["fresh_recheck_s"]``)."""
    if _refuted_exactly(r):
        return fresh_refutation_gate(r, checker)
    if r.status != "proved" or checker is None:
        return r
    details = r.details if isinstance(r.details, dict) else {}
    t0 = time.perf_counter()
    verdict = checker.check(r.certificate, details.get("declared_statements"), r.proved_statement)
    dt = time.perf_counter() - t0
    r.details = details
    r.details["fresh_recheck_s"] = round(dt, 6)
    r.seconds += dt
    if verdict.falsify:
        r.details["fresh_falsification"] = verdict.falsify  # the claim's own "falsification" rows stay
    if verdict.ok:
        r.proved_statement = list(verdict.words)
        r.details["proved_statements"] = list(verdict.words)
        return r
    r.details["claimed_status"] = r.status
    r.status = "error"
    r.note = f"fresh re-check failed: {verdict.reason}" + (f" [claim's note: {r.note}]" if r.note else "")
    r.proved_statement = None
    return r


def _refuted_exactly(r: ClaimResult) -> bool:
    return r.status == "refuted" and isinstance(r.details, dict) and r.details.get("refuted_exactly") is True


def fresh_refutation_gate(r: ClaimResult, checker: FreshChecker | None) -> ClaimResult:
    """A row refuted exactly stays so only when a fresh interpreter agrees (as :func:`fresh_gate` for ``proved``):
    ``checker.check_refutation`` re-checks the counterexample certificates, the implication from each declared refuted
    statement (``details["declared_refuted"]``) and the printed words (``details["refuted_statements"]``) from the
    row's JSON alone.  When it fails (or there is no fresh checker to ask) the row loses its exactness
    (``details["refuted_exactly"] = False``, ``details["not_exact_because"]``): it stays ``refuted`` on its numeric
    counterexample, or becomes ``error`` without one."""
    details = r.details
    t0 = time.perf_counter()
    check = getattr(checker, "check_refutation", None)
    if callable(check):
        verdict = check(r.certificate, details.get("declared_refuted"), details.get("refuted_statements"))
        ok, reason = verdict.ok, verdict.reason
    else:
        ok, reason = False, "no fresh interpreter re-checked the counterexample"
    dt = time.perf_counter() - t0
    details["fresh_recheck_s"] = round(dt, 6)
    r.seconds += dt
    if ok:
        return r
    details["refuted_exactly"] = False
    details["not_exact_because"] = f"fresh re-check failed: {reason}"
    if not r.counterexample:
        details["claimed_status"] = r.status
        r.status = "error"
        r.note = (f"fresh re-check of the counterexample certificate failed ({reason}) and there is no numeric "
                  "counterexample" + (f" [claim's note: {r.note}]" if r.note else ""))
    else:
        r.note = (r.note + " " if r.note else "") + f"[refuted numerically, not exactly: fresh re-check failed: {reason}]"
    return r


class FreshGate:
    """Hands every finished claim to ``record``, ``proved`` ones and those refuted exactly through :func:`fresh_gate`
    first (:func:`fresh_refutation_gate`).

    The fresh re-checks run on one background thread, in the order the claims finish (one fresh interpreter
    serves them one at a time), so that the next claim runs meanwhile; ``record`` is called under a lock, from
    whichever thread has the row.  :meth:`drain` waits for the re-checks still running and re-raises what
    ``record`` raised; :meth:`abandon` stops the fresh interpreter (a re-check it cuts short is not recorded)."""

    def __init__(self, checker: FreshChecker | None, record: Callable[[ClaimResult], None]) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.checker, self.record = checker, record
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="fresh-recheck") if checker is not None else None
        self.pending: list[Future[Any]] = []

    def __call__(self, r: ClaimResult) -> None:
        if (r.status == "proved" or _refuted_exactly(r)) and self.pool is not None:
            self.pending.append(self.pool.submit(self._gate, r))
            return
        if _refuted_exactly(r):  # no fresh interpreter: an exactness nobody re-checked is not recorded
            r = fresh_refutation_gate(r, None)
        with self.lock:
            self.record(r)

    def _gate(self, r: ClaimResult) -> None:
        r = fresh_gate(r, self.checker)
        with self.lock:
            self.record(r)

    def drain(self) -> None:
        for fut in self.pending:
            fut.result()

    def abandon(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if self.checker is not None:
            self.checker.close()


def _load_claims(args: argparse.Namespace, only: Sequence[str]) -> dict[str, str]:
    """Load the entry points, the plugins and the built-in claim modules; returns the import failures of
    built-in modules and entry points (reported, exit 1).  Raises :class:`_BadArgument` - before any claim
    runs and before the built-in modules are imported - for a plugin that is missing, fails to import,
    registers no claim or a built-in claim's id, and for ``--only`` patterns that match no claim id.

    The built-in modules import scipy, sympy, cvxpy and hypothesis (seconds), so they load last: the
    patterns are matched against the built-in ids read from their sources
    (:func:`verify.plugins.builtin_claim_ids`), the catalogue and the ids the entry points and plugins
    registered.  The report order does not depend on the load order (:func:`verify.core.all_ids`)."""
    from verify.plugins import LOAD_ERRORS

    for spec in args.plugin:  # a missing file or module, a syntax error: before anything is imported
        why = plugin_problem(spec)
        if why is not None:
            raise _BadArgument(why)
    static = builtin_claim_ids()
    if not args.no_entry_points and has_entry_points():
        load_entry_points()
    _load_plugins(args.plugin, args.debug, static or frozenset())
    if only and static is not None and not select(only, [*all_ids(), *sorted(static)]):
        raise _BadArgument(_no_match(only))
    load_builtin()
    return dict(LOAD_ERRORS)


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    for name, suffix in (("json", ".json"), ("markdown", ".md")):
        if not hasattr(args, name):  # neither --NAME PATH nor --no-NAME given
            setattr(args, name, default_report(args.plugin, suffix))
    if args.timeout is None:
        args.timeout = DEFAULT_TIMEOUT[0] if args.quick else DEFAULT_TIMEOUT[1]
    local = args.executor == "process" or not args.address
    if local and args.workers > available_cores():
        print(f"verify: --workers {args.workers} capped at {available_cores()} (the CPU cores available)",
              file=sys.stderr)
        args.workers = available_cores()
    if args.json is not None:
        _check_writable(ap, "--json", args.json)
    if args.markdown is not None:
        _check_writable(ap, "--markdown", args.markdown)
    only = list(args.only or []) + (["peers.*"] if args.peers else [])
    # the interpreter that re-checks proofs starts before any plugin is imported (fresh_gate)
    # quick mode: falsification to fewer horizons (fairtheory.proofs.falsify.QUICK_HORIZONS); --full: every horizon
    fresh = None if args.list else FreshChecker(quick=bool(args.quick))
    try:
        load_errors = _load_claims(args, only)
    except _BadArgument as exc:
        return _usage_error(ap, str(exc))
    console = Console(width=console_width())  # COLUMNS, else the terminal's, else 100 (verify.console)
    for mod, tb in load_errors.items():
        console.print(f"[bold red]claim module {escape(mod)} failed to import:[/]\n{escape(tb)}", highlight=False)
    ids = select(only)
    if only and not ids:
        return _usage_error(ap, _no_match(only))
    if args.list:
        for i in ids:
            spec = REGISTRY.get(i)
            state = spec.expected if spec else "not implemented"
            cite = spec.citation if spec else ""
            src = "" if spec is None or spec.source == "built-in" else f"  ({spec.source})"
            console.print(escape(f"{i:40s} {cite:32s} {state}{src}"), highlight=False, soft_wrap=True)
        return 1 if load_errors else 0
    meta = {"mode": "quick" if args.quick else "full", "seed": args.seed, "python": platform.python_version(),
            "plugins": list(args.plugin), "workers": args.workers, "executor": args.executor,
            "timeout_s": args.timeout or None,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"), "complete": False}
    try:
        executor = make_executor(args.executor, args.workers, address=args.address, plugins=args.plugin,
                                 entry_points=not args.no_entry_points)
    except RuntimeError as exc:
        ap.error(str(exc))
    done: dict[str, ClaimResult] = {}
    write_errors: dict[str, str] = {}
    t0 = time.perf_counter()

    def ordered() -> list[ClaimResult]:
        return [done[i] for i in ids if i in done]

    rows_json: dict[str, Any] = {}  # each finished row's JSON text (verify.report.to_json): not re-serialised per save
    rows_md: dict[str, Any] = {}  # each finished row's Markdown lines (verify.report.to_markdown), likewise

    def save() -> None:
        meta["elapsed_s"] = round(time.perf_counter() - t0, 3)
        meta["complete"] = len(done) == len(ids)
        results = ordered()
        for path, render in ((args.json, lambda rs, m: to_json(rs, m, rows_json)),
                             (args.markdown, lambda rs, m: to_markdown(rs, m, rows_md))):
            if path:
                try:
                    atomic_write(path, render(results, meta))
                except OSError as exc:
                    if path not in write_errors:
                        console.print(escape(f"cannot write the report {path}: {exc}"), style="red")
                    write_errors[path] = str(exc)

    def record(r: ClaimResult) -> None:
        done[r.id] = r
        # fitted to the width by dropping fields: never wrapped, piped or in a terminal (verify.console)
        console.print(progress_line(r, len(done), len(ids), console.width), highlight=False, no_wrap=True,
                      overflow="ignore", crop=False)
        save()

    gate = FreshGate(fresh, record)
    try:
        _run_all(ids, args, executor, gate)
        gate.drain()
    except KeyboardInterrupt:
        executor.shutdown()
        gate.abandon()
        meta["interrupted"] = True
        save()
        console.print(f"[yellow]interrupted: {len(done)} of {len(ids)} claims finished and saved[/]")
        return 130
    executor.shutdown()
    gate.abandon()
    results = ordered()
    print_results(console, results)  # fits the console width; whole rows in the Markdown/JSON reports
    bad = [r for r in results if not r.as_expected or (args.strict and r.status == "not implemented")]
    written = [p for p in (args.json, args.markdown) if p and p not in write_errors]
    problems = ([f"reports not written: {', '.join(write_errors)}"] if write_errors else []) + (
        [f"{len(load_errors)} claim module(s) failed to import: {', '.join(load_errors)}"] if load_errors else [])
    failed = False
    for line in closing_lines(results, time.perf_counter() - t0, written, console.width, strict=args.strict,
                              problems=problems):
        failed = failed or line.startswith("exit status 1")
        console.print(Text(line), highlight=False, no_wrap=True, overflow="ignore", crop=False,
                      style="red" if failed else None)
    return 1 if bad or problems else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
