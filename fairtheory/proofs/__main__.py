"""``python -m fairtheory.proofs recheck REPORT.json``: re-check every ``proved`` row, every row refuted exactly and
the ``decided`` section of a verification report.

For each row of status ``proved`` in the JSON report of ``python -m verify``, from the JSON alone
(:func:`fairtheory.proofs.recheck.recheck_report`): every certificate re-checks exactly, every declared statement
(``details.declared_statements``) is implied by a certificate's statement, the printed words (``proved_statement``)
are the words of those statements, and no statement is refuted numerically (``--no-falsify`` skips this).  One
line per row; exit status 0 when every proved row passes, 1 naming the rows that fail, 2 when the report cannot
be read (not JSON, or a JSON object with a repeated key).  A row refuted exactly re-checks its
``"counterexample"`` certificates against the statement the claim declares refuted; the ``decided`` section (which
seed claims are decided) must agree with the rows.  Run it in your own checkout, without plugins: nothing
from the process that wrote the report is trusted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from fairtheory.proofs.recheck import recheck_report


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object whose keys are all different: with a repeated key (``"proved_statement"`` twice) a viewer
    that shows the first copy and this re-check, which would read the last, would not see the same row."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a JSON object repeats a key")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fairtheory.proofs", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    rc = sub.add_parser("recheck", help="re-check every proved row, every row refuted exactly and the decided "
                                        "section of a verify JSON report")
    rc.add_argument("report", metavar="REPORT.json")
    rc.add_argument("--no-falsify", action="store_true", help="skip the numerical refutation attempts")
    args = ap.parse_args(argv)
    try:
        with open(args.report, encoding="utf-8") as fh:
            doc = json.load(fh, object_pairs_hook=_unique_keys)
        rows = recheck_report(doc, falsify=not args.no_falsify)
    except (OSError, ValueError, RecursionError) as exc:
        print(f"python -m fairtheory.proofs recheck: cannot read {args.report!r}: {exc}"[:400], file=sys.stderr)
        return 2
    for row in rows:
        print(row.line())
    bad = [r.id for r in rows if not r.verdict.ok]
    n_p, n_r = (sum(r.what == w for r in rows) for w in ("proved", "refuted exactly"))
    kinds = f"{n_p} proved, {n_r} refuted exactly" + (f", {len(rows) - n_p - n_r} report sections" if
                                                      len(rows) > n_p + n_r else "")
    if bad:
        print(f"{len(bad)} of {len(rows)} rows FAIL ({kinds}): {', '.join(bad)}")
        return 1
    print(f"all {len(rows)} rows re-check ({kinds})" if rows else "nothing to re-check (the report has no proved row "
          "and no row refuted exactly)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
