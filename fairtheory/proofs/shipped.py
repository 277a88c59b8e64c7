r"""Certificates shipped with the package: the quick run re-checks them instead of searching for them again.

A proof claim has two parts of very different cost and trust.  The *search* (the rational-function multipliers of
:func:`fairtheory.proofs.parametric.prove_family`, the exact dual multipliers of
:func:`fairtheory.proofs.certificate.certify_exact`) is slow and untrusted; the *re-check* by the trusted kernel
(:func:`fairtheory_kernel.check.check_proof`) is fast, and it is what ``proved`` means.  So the quick run reads the
certificates an earlier search found - JSON files shipped as package data,
``fairtheory/proofs/shipped_certificates/<claim id>.json`` - and hands them to exactly the re-checks a certificate
just searched for goes through: the claim's own :func:`~fairtheory_kernel.check.check_proof`, the runner's re-check
and binding to the claim's declared statement (:func:`verify.core.run_claim`), and the fresh interpreter's
(:func:`verify.runner.fresh_gate`).  Nothing is trusted because it was shipped: an edited file (a lowered bound,
another statement, changed multipliers) either is not picked (its statement does not imply the one asked for: the
search runs) or fails the kernel's re-check (the claim is not ``proved``).

:func:`shipped_or_search` is the one hook a claim calls: in quick mode the first shipped certificate of the claim
whose statement implies the statement asked for (:func:`fairtheory_kernel.check.implies`), marked
``meta["origin"] = "shipped"`` (``meta`` is informational, never read by the kernel); in full mode, or when the file
is missing, malformed or holds no such certificate, the search.  The environment variable
``FAIRTHEORY_SHIPPED`` overrides the mode: ``search`` always searches; ``record:DIR`` searches and records each
certificate found in ``DIR/<claim id>.json`` (what the regeneration command below reads).

Regenerate the files (after a change to a search, a statement or the kernel)::

    python -m fairtheory.proofs.shipped --write                 # every claim that has a file, and the known ones
    python -m fairtheory.proofs.shipped --write proofs.fit.localgd_rho0

It runs the quick ``python -m verify --only <ids>`` with ``FAIRTHEORY_SHIPPED=record:<tmp>`` (every search runs), and
keeps a claim's recorded certificates only when that run ended ``proved`` and each recorded certificate re-checks
(:func:`~fairtheory_kernel.check.check_proof`).  ``--check`` re-checks the shipped files without searching.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fairtheory.errors import FairtheoryValueError

#: where the shipped certificates live (package data, see ``pyproject.toml``)
DATA = Path(__file__).resolve().parent / "shipped_certificates"
#: the environment variable that overrides the mode: unset or ``use``, ``search``, ``record:DIR``
ENV = "FAIRTHEORY_SHIPPED"
#: the ``format`` field of a shipped file
FORMAT = "fairtheory-shipped-certificates"
VERSION = 1
#: the claims whose quick run uses shipped certificates (what ``--write`` without ids regenerates)
CLAIMS = ("proofs.fit.localgd_rho0", "proofs.localgd.rho0_formula", "proofs.rcfl.theorem1.every_step")

_ID = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+")


def _check_id(claim_id: Any) -> str:
    if not isinstance(claim_id, str) or not _ID.fullmatch(claim_id):
        raise FairtheoryValueError(f"claim_id must be a dotted claim id like 'proofs.fit.localgd_rho0', got {claim_id!r}")
    return claim_id


def path_of(claim_id: str, folder: Path | None = None) -> Path:
    """The shipped file of ``claim_id`` (in ``folder``, default :data:`DATA`)."""
    return (DATA if folder is None else Path(folder)) / f"{_check_id(claim_id)}.json"


def mode() -> tuple[str, Path | None]:
    """``("use", None)``, ``("search", None)`` or ``("record", DIR)`` from :data:`ENV`; anything else raises
    ``FairtheoryValueError`` naming the variable and its allowed values."""
    raw = os.environ.get(ENV, "").strip()
    if raw in ("", "use"):
        return "use", None
    if raw == "search":
        return "search", None
    if raw.startswith("record:") and raw[len("record:"):].strip():
        return "record", Path(raw[len("record:"):].strip())
    raise FairtheoryValueError(f"{ENV} must be unset, 'use', 'search' or 'record:DIR', got {raw!r}")


def load(claim_id: str, folder: Path | None = None) -> list[dict[str, Any]]:
    """The certificates of ``claim_id``'s shipped file, in file order; ``[]`` when the file is missing, unreadable or
    not a shipped file of this claim (untrusted data: nothing here is checked beyond the file's shape)."""
    try:
        doc = json.loads(path_of(claim_id, folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION \
            or doc.get("claim") != claim_id or not isinstance(doc.get("certificates"), list):
        return []
    return [c for c in doc["certificates"] if isinstance(c, dict)]


def find(claim_id: str, declared: Mapping[str, Any], folder: Path | None = None) -> dict[str, Any] | None:
    """The first shipped certificate of ``claim_id`` whose statement implies ``declared``
    (:func:`fairtheory_kernel.check.implies` of :func:`~fairtheory_kernel.check.statement_of`), or ``None``.  The
    certificate is *not* re-checked here: its users re-check it (module doc)."""
    from fairtheory_kernel.check import implies, statement_of

    for cert in load(claim_id, folder):
        st = statement_of(cert)
        if st is not None and implies(st, declared):
            return cert
    return None


def _marked(cert: dict[str, Any]) -> dict[str, Any]:
    meta = cert.get("meta") if isinstance(cert.get("meta"), dict) else {}
    return {**cert, "meta": {**meta, "origin": "shipped"}}


def _record(folder: Path, claim_id: str, cert: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{claim_id}.json"
    try:
        found = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found = []
    found.append(cert)
    tmp = target.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(found), encoding="utf-8")
    tmp.replace(target)


def shipped_or_search(claim_id: str, search: Callable[[], dict[str, Any] | None], *, declared: Mapping[str, Any],
                      quick: bool) -> dict[str, Any] | None:
    """A certificate (JSON) for the statement ``declared``: in quick mode the shipped one of ``claim_id`` whose
    statement implies ``declared`` (:func:`find`, marked ``meta["origin"] = "shipped"``), else ``search()`` (which
    returns certificate JSON or ``None``; its exceptions propagate).  Full mode, a missing or malformed file, no
    matching certificate, and ``FAIRTHEORY_SHIPPED=search`` all search; ``record:DIR`` searches and records what was
    found.  The result is untrusted either way: the caller re-checks it (:func:`fairtheory_kernel.check.check_proof`)
    and the runner binds it to the claim's declared statement."""
    _check_id(claim_id)
    if not isinstance(quick, bool):
        raise FairtheoryValueError(f"quick must be True or False, got {quick!r}")
    how, folder = mode()
    if quick and how == "use":
        cert = find(claim_id, declared)
        if cert is not None:
            return _marked(cert)
    found = search()
    if how == "record" and folder is not None and isinstance(found, dict):
        _record(folder, claim_id, found)
    return found


# ------------------------------------------------------------------------------------------------ regeneration
def _document(claim_id: str, certs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    clean = []
    for c in certs:
        meta = {k: v for k, v in (c.get("meta") or {}).items() if k not in ("origin", "seconds")}
        clean.append({**c, "meta": meta})
    return {"format": FORMAT, "version": VERSION, "claim": claim_id,
            "written_by": "python -m fairtheory.proofs.shipped --write (the quick run's searches, re-checked)",
            "certificates": clean}


def write(claim_id: str, certs: Sequence[dict[str, Any]], folder: Path | None = None) -> Path:
    """Write ``certs`` as ``claim_id``'s shipped file (sorted keys, one certificate a line); returns its path."""
    target = path_of(claim_id, folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    doc = _document(claim_id, certs)
    body = ",\n".join(json.dumps(c, sort_keys=True, separators=(",", ":")) for c in doc["certificates"])
    head = json.dumps({k: v for k, v in doc.items() if k != "certificates"}, sort_keys=True)[:-1]
    target.write_text(f'{head}, "certificates": [\n{body}\n]}}\n', encoding="utf-8")
    return target


def regenerate(ids: Sequence[str], *, folder: Path | None = None, python: str | None = None,
               ) -> dict[str, str]:
    """Run the quick ``python -m verify --only <ids>`` with every search on (``record`` mode) and write each claim's
    recorded certificates when the claim ended ``proved`` and each re-checks; returns ``{claim id: what happened}``."""
    import subprocess
    import sys
    import tempfile

    from fairtheory_kernel.check import check_proof

    ids = [_check_id(i) for i in ids]
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="fairtheory-shipped.") as tmp:
        rec, report = Path(tmp) / "recorded", Path(tmp) / "verify.json"
        cmd = [python or sys.executable, "-m", "verify", "--only", ",".join(ids), "--json", str(report), "--no-markdown",
               "--no-entry-points"]
        subprocess.run(cmd, env={**os.environ, ENV: f"record:{rec}"}, check=False, stdout=subprocess.DEVNULL)
        try:
            rows = {r["id"]: r for r in json.loads(report.read_text(encoding="utf-8"))["claims"]}
        except (OSError, ValueError, KeyError, TypeError):
            return dict.fromkeys(ids, "no report: the verify run failed")
        for cid in ids:
            row = rows.get(cid)
            if row is None or row.get("status") != "proved":
                out[cid] = f"not written: the claim ended {row.get('status') if row else 'missing'}"
                continue
            try:
                certs = json.loads((rec / f"{cid}.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                out[cid] = "not written: no certificate was recorded (does the claim call shipped_or_search?)"
                continue
            bad = [k for k, c in enumerate(certs) if not check_proof(c)]
            if bad:
                out[cid] = f"not written: recorded certificates {bad} do not re-check"
                continue
            out[cid] = f"wrote {len(certs)} certificates to {write(cid, certs, folder)}"
    return out


def check_shipped(ids: Sequence[str], folder: Path | None = None) -> dict[str, str]:
    """Re-check every certificate of each claim's shipped file (:func:`~fairtheory_kernel.check.check_proof`)."""
    from fairtheory_kernel.check import check_proof

    out = {}
    for cid in ids:
        certs = load(cid, folder)
        ok = sum(bool(check_proof(c)) for c in certs)
        out[cid] = f"{ok} of {len(certs)} shipped certificates re-check" if certs else "no shipped file"
    return out


def shipped_ids(folder: Path | None = None) -> list[str]:
    """The claim ids with a shipped file."""
    base = DATA if folder is None else Path(folder)
    return sorted(p.name[:-len(".json")] for p in base.glob("*.json")) if base.is_dir() else []


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m fairtheory.proofs.shipped", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", action="store_true", help="run the searches and (re)write the shipped files")
    what.add_argument("--check", action="store_true", help="re-check the shipped files (no search)")
    ap.add_argument("ids", nargs="*", help=f"claim ids (default: {', '.join(CLAIMS)} and every claim with a file)")
    args = ap.parse_args(argv)
    ids = list(dict.fromkeys(args.ids or [*CLAIMS, *shipped_ids()]))
    res = regenerate(ids) if args.write else check_shipped(ids)
    for cid, msg in res.items():
        print(f"{cid}: {msg}")
    good = ("wrote",) if args.write else ()
    failed = [c for c, m in res.items() if (args.write and not m.startswith(good))
              or (args.check and not re.fullmatch(r"(\d+) of \1 shipped certificates re-check", m))]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
