"""``python -m verify``: run the claim catalogue and report measured vs bound.

Options: ``--only PATTERN`` (fnmatch, repeatable or comma-separated), ``--list``, ``--quick``
(default) / ``--full``, ``--json PATH``, ``--markdown PATH``, ``--seed N``, ``--strict``.
Exit status 1 when a claim's status differs from its expectation or a check errors
(``--strict`` also counts ``not implemented``).  Reports are rewritten atomically after every claim,
so an interrupted run keeps what it measured.
"""

from __future__ import annotations

import argparse
import fnmatch
import platform
import sys
import time
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from verify.catalogue import CATALOGUE
from verify.claims import load_all
from verify.core import REGISTRY, ClaimResult, Context, run_claim
from verify.report import atomic_write, fmt, to_json, to_markdown

STYLE = {"verified": "green", "refuted": "red", "inconclusive": "yellow", "skipped": "cyan",
         "not implemented": "dim", "error": "bold red"}


def select(patterns: Sequence[str] | None) -> list[str]:
    ids = list(CATALOGUE)
    if not patterns:
        return ids
    pats = [p.strip() for spec in patterns for p in spec.split(",") if p.strip()]
    chosen = [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in pats)]
    return chosen


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
    ap.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    ap.add_argument("--strict", action="store_true", help="also fail on claims not implemented")
    return ap


def results_table(results: Sequence[ClaimResult]) -> Table:
    t = Table(title="fairtheory claims", show_lines=False)
    for col in ("id", "citation", "status", "measured", "bound", "margin", "tightness", "n", "s"):
        t.add_column(col, overflow="fold")
    for r in results:
        st = r.status if r.as_expected else f"{r.status} (expected {r.expected})"
        t.add_row(r.id, r.citation, f"[{STYLE.get(r.status, '')}]{st}[/]", fmt(r.measured), fmt(r.bound),
                  fmt(r.margin), fmt(r.tightness), str(r.instances), f"{r.seconds:.1f}")
    return t


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 200)
    load_errors = load_all()
    for mod, tb in load_errors.items():
        console.print(f"[bold red]claim module {mod} failed to import:[/]\n{tb}", highlight=False)
    ids = select(args.only)
    if args.only and not ids:
        console.print(f"[red]no claim id matches {args.only}[/]")
        return 2
    if args.list:
        for i in ids:
            state = REGISTRY[i].expected if i in REGISTRY else "not implemented"
            console.print(f"{i:40s} {CATALOGUE[i][0]:32s} {state}")
        return 0
    ctx = Context(quick=args.quick, seed=args.seed)
    meta = {"mode": "quick" if args.quick else "full", "seed": args.seed, "python": platform.python_version(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
    results: list[ClaimResult] = []
    t0 = time.perf_counter()
    for k, cid in enumerate(ids, 1):
        r = run_claim(cid, ctx)
        results.append(r)
        flag = "" if r.as_expected else f" (expected {r.expected})"
        console.print(f"[{k:>2}/{len(ids)}] {cid:40s} [{STYLE.get(r.status, '')}]{r.status}[/]{flag} "
                      f"measured={fmt(r.measured)} bound={fmt(r.bound)} tight={fmt(r.tightness)} "
                      f"({r.seconds:.1f}s)", highlight=False)
        meta["elapsed_s"] = round(time.perf_counter() - t0, 3)
        meta["complete"] = k == len(ids)
        if args.json:
            atomic_write(args.json, to_json(results, meta))
        if args.markdown:
            atomic_write(args.markdown, to_markdown(results, meta))
    console.print(results_table(results))
    bad = [r for r in results if not r.as_expected or (args.strict and r.status == "not implemented")]
    counts = {s: sum(r.status == s for r in results) for s in dict.fromkeys(r.status for r in results)}
    console.print(f"{len(results)} claims in {time.perf_counter() - t0:.1f}s: "
                  + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if load_errors:
        console.print(f"[red]{len(load_errors)} claim module(s) failed to import: {', '.join(load_errors)}[/]")
        return 1
    if bad:
        console.print("[red]unexpected: " + ", ".join(f"{r.id} ({r.status})" for r in bad) + "[/]")
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
