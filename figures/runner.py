"""``python -m figures``: regenerate theory figures into an output folder.

``--workers N`` (or ``auto``) makes the figures on local processes (``--executor ray`` on Ray), with the
same executors as ``python -m verify --workers``."""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.markup import escape

from figures import load_all
from figures.registry import FIGURES

PROG = "python -m figures"


class UsageError(Exception):
    """A bad command line (reported on one line, exit status 2, before any figure is made)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's usage errors become one-line UsageErrors
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog=PROG, description=__doc__)
    ap.add_argument("--out", default="figures_out", help="output folder (default figures_out)")
    ap.add_argument("--only", action="append", metavar="NAME", help="figure name or fnmatch pattern")
    ap.add_argument("--pdf", action="store_true", help="also write PDF")
    ap.add_argument("--list", action="store_true", help="list figure names")
    ap.add_argument("--write-docs", nargs="?", const="", default=None, metavar="PATH",
                    help="write the page docs/figures.md of this checkout (or PATH) from every figure module's TITLE "
                         "and DOC, and exit (makes no figure)")
    ap.add_argument("--full", action="store_true", help="larger sweeps (slower)")
    ap.add_argument("--check", action="store_true",
                    help="inspect every figure before it is saved (figures.checks: legend entries visible and "
                         "distinct, axis labels, no legend or text box over data); exit 1 when one has a problem")
    ap.add_argument("--workers", type=_workers, default=1, metavar="N",
                    help="make figures on N local processes ('auto' = CPU count), as python -m verify does")
    ap.add_argument("--executor", choices=("process", "ray"), default="process",
                    help="local processes (default) or Ray (pip install -e '.[ray]')")
    return ap


def _workers(text: str) -> int:
    from verify.parallel import worker_count

    try:
        return worker_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def make_figure(name: str, out: str, formats: tuple[str, ...], quick: bool,
                check: bool = False) -> tuple[list[Path], list[str]]:
    """Make one registered figure (a task of the executor; loads the figure modules where it runs); returns the
    files written and, with ``check``, the problems :func:`figures.checks.figure_problems` found."""
    import matplotlib

    matplotlib.use("Agg")
    load_all()
    from figures.registry import SAVE_HOOKS

    problems: list[str] = []

    def inspect(fig: object, saved: str) -> None:
        from figures.checks import figure_problems

        problems.extend(f"{saved}: {p}" for p in figure_problems(fig))

    if check:
        SAVE_HOOKS.append(inspect)
    try:
        return FIGURES[name].make(Path(out), formats, quick), problems
    finally:
        if check:
            SAVE_HOOKS.remove(inspect)


def check_out_dir(path: str) -> Path:
    """``path`` as the output folder, or :class:`UsageError` unless it is (or can be created as) a
    writable directory."""
    if not path.strip():
        raise UsageError("--out needs a folder path, got an empty string")
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {path!r} exists and is not a directory")
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"--out {path!r}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"--out {path!r} is not writable ({existing} does not allow writing)")
    return out


def _usage_error(message: str) -> int:
    print(f"{PROG}: error: {message}".replace("\n", " "), file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (2 for a bad command line, checked before any figure)."""
    try:
        args = build_parser().parse_args(argv)
        out = None if args.list or args.write_docs is not None else check_out_dir(args.out)
    except UsageError as exc:
        return _usage_error(str(exc))
    if args.write_docs is not None:
        from figures.docs import DOCS_PATH, write

        print(f"wrote {write(Path(args.write_docs) if args.write_docs else DOCS_PATH)}")
        return 0
    import matplotlib

    matplotlib.use("Agg")
    load_all()
    # one line per figure as it finishes, never wrapped (CI logs are not terminals)
    console = Console(soft_wrap=True)
    names = list(FIGURES)
    if args.only:
        pats = [p for s in args.only for p in s.split(",")]
        names = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in pats)]
        if not names:
            return _usage_error(f"no figure matches {args.only}; known: {', '.join(FIGURES)}")
    if args.list:
        for n in names:
            console.print(f"{n:32s} {FIGURES[n].description}")
        return 0
    assert out is not None
    formats = ("png", "pdf") if args.pdf else ("png",)
    from concurrent.futures import as_completed

    from verify.parallel import available_cores, make_executor

    if args.executor == "process" and args.workers > available_cores():
        print(f"figures: --workers {args.workers} capped at {available_cores()} (the CPU cores available)",
              file=sys.stderr)
        args.workers = available_cores()
    executor = make_executor(args.executor, args.workers, entry_points=False)
    failed: list[str] = []
    flawed: list[str] = []
    t0 = time.perf_counter()
    done = 0

    def report(name: str, fut: Any) -> None:
        nonlocal done
        done += 1
        try:
            paths, problems = fut.result()
        except Exception as exc:  # report and continue with the other figures
            failed.append(name)
            console.print(f"[{done}/{len(names)}] {escape(name)}: [red]failed[/] {escape(f'{type(exc).__name__}: {exc}')}",
                          highlight=False)
            return
        console.print(escape(f"[{done}/{len(names)}] {name}: " + ", ".join(str(p) for p in paths)
                             + f" ({time.perf_counter() - t0:.1f}s elapsed)"), highlight=False)
        for problem in problems:
            console.print(f"  [red]check:[/] {escape(problem)}", highlight=False)
        if problems:
            flawed.append(name)

    try:
        if args.workers == 1 and args.executor == "process":  # serial: report each figure as soon as it is made
            for name in names:
                report(name, executor.submit(make_figure, name, str(out), formats, not args.full, args.check))
        else:
            futures = {executor.submit(make_figure, name, str(out), formats, not args.full, args.check): name
                       for name in names}
            for fut in as_completed(futures):
                report(futures[fut], fut)
    finally:
        executor.shutdown()
    if flawed:
        console.print(escape(f"figure check: problems in {', '.join(flawed)}"), style="red", highlight=False)
    return 1 if failed or flawed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
