"""``python -m verify``: run the claim catalogue (and your plugins) and report measured vs bound.

Options: ``--only PATTERN`` (fnmatch, repeatable or comma-separated), ``--peers`` (the peer-library
audit family), ``--list``, ``--quick`` (default) / ``--full``, ``--json PATH``, ``--markdown PATH``,
``--no-json``/``--no-markdown``, ``--seed N``, ``--strict``, ``--plugin MODULE_OR_PATH`` (repeatable;
a dotted module or a ``.py`` file), ``--no-entry-points`` (ignore installed ``fairtheory.claims`` entry
points), ``--workers N|auto`` with ``--executor process|ray`` and ``--address ADDR`` (parallel runs:
the same report as a serial run, see :mod:`verify.parallel`).

Exit status 1 when a claim's status differs from its expectation, a check errors or a claim module
fails to import (``--strict`` also counts ``not implemented``); 2 for bad arguments (before any claim
runs); 130 when interrupted.  Reports are rewritten atomically after every claim, so an interrupted run
keeps every claim that finished.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from verify.core import REGISTRY, ClaimResult, Context, all_ids, run_claim
from verify.parallel import SerialExecutor, make_executor, run_claim_task
from verify.plugins import load_builtin, load_entry_points, load_plugins
from verify.report import atomic_write, fmt, status_counts, to_json, to_markdown

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


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m verify", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", metavar="PATTERN",
                    help="run claims whose id matches this fnmatch pattern (e.g. 'rcfl.*')")
    ap.add_argument("--list", action="store_true", help="list claim ids, citations and implementation state")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="quick", action="store_true", default=True, help="CI-sized run (default)")
    mode.add_argument("--full", dest="quick", action="store_false", help="exhaustive run")
    ap.add_argument("--json", metavar="PATH", default="reports/verify.json", help="JSON report path")
    ap.add_argument("--markdown", metavar="PATH", default="reports/verify.md", help="Markdown report path")
    ap.add_argument("--no-json", dest="json", action="store_const", const=None, help="write no JSON report")
    ap.add_argument("--no-markdown", dest="markdown", action="store_const", const=None,
                    help="write no Markdown report")
    ap.add_argument("--seed", type=_seed, default=0, help="master seed, an integer >= 0 (default 0)")
    ap.add_argument("--strict", action="store_true", help="also fail on claims not implemented")
    ap.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_PATH",
                    help="load claims from a dotted module or a .py file (repeatable)")
    ap.add_argument("--no-entry-points", action="store_true",
                    help="do not load installed 'fairtheory.claims' entry points")
    ap.add_argument("--peers", action="store_true",
                    help="run the peer-library audit family (peers.*; same as --only 'peers.*')")
    ap.add_argument("--workers", type=_workers, default=1, metavar="N",
                    help="run claims (and instance chunks of chunked claims) on N workers; 'auto' = CPU count")
    ap.add_argument("--executor", choices=("process", "ray"), default="process",
                    help="local processes (default) or Ray (pip install -e '.[ray]')")
    ap.add_argument("--address", default=None, metavar="ADDR",
                    help="Ray cluster address to attach to (default: start Ray locally)")
    return ap


def _workers(text: str) -> int:
    from verify.parallel import worker_count

    try:
        return worker_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _check_writable(ap: argparse.ArgumentParser, option: str, path: str) -> None:
    """Exit 2 (usage error) unless ``path`` names a file that can be written."""
    if not path.strip():
        ap.error(f"{option} needs a file path, got an empty string")
    target = Path(path)
    if target.is_dir():
        ap.error(f"{option} {path!r} is a directory, not a file")
    parent = target.parent
    existing = parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        ap.error(f"{option} {path!r}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        ap.error(f"{option} {path!r} is not writable")


def _styled(status: str, text: str) -> str:
    """``text`` (escaped: plugin text is never markup) in the colour of ``status``."""
    style = STYLE.get(status)
    return f"[{style}]{escape(text)}[/]" if style else escape(text)


def results_table(results: Sequence[ClaimResult]) -> Table:
    t = Table(title="fairtheory claims", show_lines=False)
    for col in ("id", "citation", "status", "measured", "rel", "bound", "error/tol", "tight", "adv", "worst", "n",
                "s"):
        t.add_column(col, overflow="fold")
    for r in results:
        st = r.status if r.as_expected else f"{r.status} (expected {r.expected})"
        errtol = f"{fmt(r.error)}/{fmt(r.tolerance)}" if r.tolerance is not None else "-"
        t.add_row(escape(r.id), escape(r.citation), _styled(r.status, st), fmt(r.measured),
                  escape(r.relation or "-"),
                  fmt(r.bound), errtol, fmt(r.tightness), fmt(r.adversarial), fmt(r.worstcase), str(r.instances),
                  f"{r.seconds:.1f}")
    return t


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

    Serial: in id order.  With workers: whole claims are submitted to the executor; chunked claims run
    in a helper thread of the main process and spread their instances over the same workers."""
    ctx = Context(quick=args.quick, seed=args.seed)
    if isinstance(executor, SerialExecutor):
        for cid in ids:
            finished(run_claim(cid, ctx))
        return
    chunked = [i for i in ids if i in REGISTRY and REGISTRY[i].chunked]
    # longest first (timings of the previous report at --json, when there is one), so that a long claim
    # does not start last on an otherwise idle pool; the report keeps the id order whatever runs first
    hint = _previous_seconds(args.json)
    pending = [i for i in sorted(ids, key=lambda i: -hint.get(i, 0.0)) if i not in chunked]
    running: dict[Future[Any], str] = {}
    local = ThreadPoolExecutor(max_workers=1)

    def refill() -> None:
        # at most one queued whole claim per worker: instance chunks of a chunked claim, submitted meanwhile
        # by the helper thread, are then served before the remaining whole claims (the pool is FIFO)
        while pending and sum(1 for f in running if running[f] not in chunked and not f.done()) < executor.workers:
            cid = pending.pop(0)
            running[executor.submit(run_claim_task, cid, args.quick, args.seed)] = cid

    try:
        ctx_chunked = Context(quick=args.quick, seed=args.seed, executor=executor)
        for cid in chunked:
            running[local.submit(run_claim, cid, ctx_chunked)] = cid
        refill()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                running.pop(fut)
                finished(fut.result())
            refill()
    finally:
        local.shutdown(wait=False, cancel_futures=True)


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.json is not None:
        _check_writable(ap, "--json", args.json)
    if args.markdown is not None:
        _check_writable(ap, "--markdown", args.markdown)
    console = Console(width=None if sys.stdout.isatty() else 200)
    load_builtin()
    if not args.no_entry_points:
        load_entry_points()
    load_errors = load_plugins(args.plugin)
    for mod, tb in load_errors.items():
        console.print(f"[bold red]claim module {escape(mod)} failed to import:[/]\n{escape(tb)}", highlight=False)
    only = list(args.only or []) + (["peers.*"] if args.peers else [])
    ids = select(only)
    if only and not ids:
        console.print(escape(f"no claim id matches {only}"), style="red")
        return 2
    if args.list:
        for i in ids:
            spec = REGISTRY.get(i)
            state = spec.expected if spec else "not implemented"
            cite = spec.citation if spec else ""
            src = "" if spec is None or spec.source == "built-in" else f"  ({spec.source})"
            console.print(escape(f"{i:40s} {cite:32s} {state}{src}"), highlight=False)
        return 1 if load_errors else 0
    meta = {"mode": "quick" if args.quick else "full", "seed": args.seed, "python": platform.python_version(),
            "plugins": list(args.plugin), "workers": args.workers, "executor": args.executor,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"), "complete": False}
    try:
        executor = make_executor(args.executor, args.workers, address=args.address, plugins=args.plugin,
                                 entry_points=not args.no_entry_points)
    except RuntimeError as exc:
        ap.error(str(exc))
    done: dict[str, ClaimResult] = {}
    t0 = time.perf_counter()

    def ordered() -> list[ClaimResult]:
        return [done[i] for i in ids if i in done]

    def save() -> None:
        meta["elapsed_s"] = round(time.perf_counter() - t0, 3)
        meta["complete"] = len(done) == len(ids)
        results = ordered()
        if args.json:
            atomic_write(args.json, to_json(results, meta))
        if args.markdown:
            atomic_write(args.markdown, to_markdown(results, meta))

    def finished(r: ClaimResult) -> None:
        done[r.id] = r
        flag = "" if r.as_expected else f" (expected {r.expected})"
        console.print(f"[{len(done):>2}/{len(ids)}] {escape(f'{r.id:40s}')} {_styled(r.status, r.status)}"
                      f"{escape(flag)} measured={fmt(r.measured)} {escape(r.relation or 'vs')} bound={fmt(r.bound)} "
                      f"tight={fmt(r.tightness)} ({r.seconds:.1f}s)", highlight=False)
        save()

    try:
        _run_all(ids, args, executor, finished)
    except KeyboardInterrupt:
        executor.shutdown()
        meta["interrupted"] = True
        save()
        console.print(f"[yellow]interrupted: {len(done)} of {len(ids)} claims finished and saved[/]")
        return 130
    executor.shutdown()
    results = ordered()
    console.print(results_table(results))
    bad = [r for r in results if not r.as_expected or (args.strict and r.status == "not implemented")]
    counts = status_counts(results)
    console.print(f"{len(results)} claims in {time.perf_counter() - t0:.1f}s: "
                  + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if load_errors:
        console.print(f"[red]{len(load_errors)} claim module(s) failed to import: {escape(', '.join(load_errors))}[/]")
        return 1
    if bad:
        console.print("[red]unexpected: " + escape(", ".join(f"{r.id} ({r.status})" for r in bad)) + "[/]")
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
