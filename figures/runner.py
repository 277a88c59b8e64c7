"""``python -m figures``: regenerate theory figures into an output folder."""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from figures import load_all
from figures.registry import FIGURES


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m figures", description=__doc__)
    ap.add_argument("--out", default="figures_out", help="output folder (default figures_out)")
    ap.add_argument("--only", action="append", metavar="NAME", help="figure name or fnmatch pattern")
    ap.add_argument("--pdf", action="store_true", help="also write PDF")
    ap.add_argument("--list", action="store_true", help="list figure names")
    ap.add_argument("--full", action="store_true", help="larger sweeps (slower)")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    load_all()
    console = Console()
    names = list(FIGURES)
    if args.only:
        pats = [p for s in args.only for p in s.split(",")]
        names = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in pats)]
        if not names:
            console.print(f"[red]no figure matches {args.only}; known: {', '.join(FIGURES)}[/]")
            return 2
    if args.list:
        for n in names:
            console.print(f"{n:32s} {FIGURES[n].description}")
        return 0
    formats = ("png", "pdf") if args.pdf else ("png",)
    out = Path(args.out)
    failed = []
    for k, name in enumerate(names, 1):
        t0 = time.perf_counter()
        try:
            paths = FIGURES[name].make(out, formats, not args.full)
        except Exception as exc:  # report and continue with the other figures
            failed.append(name)
            console.print(f"[{k}/{len(names)}] {name}: [red]failed[/] {type(exc).__name__}: {exc}")
            continue
        console.print(f"[{k}/{len(names)}] {name}: " + ", ".join(str(p) for p in paths)
                      + f" ({time.perf_counter() - t0:.1f}s)", highlight=False)
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
