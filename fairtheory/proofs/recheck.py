r"""Re-check ``proved`` results from their JSON alone: one row (:func:`recheck_row`), a whole report
(:func:`recheck_report`, ``python -m fairtheory.proofs recheck REPORT.json``), and the fresh-interpreter checker
the verify runner uses (:class:`FreshChecker`).

A ``proved`` row stands for four facts, each re-derived here from plain JSON and nothing else:

1. every certificate re-checks exactly (:func:`fairtheory_kernel.check.check_proof`: the trusted kernel, under
   the time and memory limits of :mod:`fairtheory_kernel.bounded`);
2. every declared statement (the frozen copy the claim declared, ``details["declared_statements"]`` of a report
   row) is implied by the statement of one of those certificates (:func:`fairtheory_kernel.check.implies`);
3. the printed words (``proved_statement``) are exactly the words generated from the declared statements
   (:func:`fairtheory_kernel.check.describe`), so what a reader sees is what was checked;
4. no certificate's statement is refuted numerically (:mod:`fairtheory.proofs.falsify`, defence in depth: a
   statement the kernel accepted and a concrete instance refutes is a kernel bug, reported with the instance).

A ``refuted`` row whose ``details["refuted_exactly"]`` is ``true`` stands for three facts, re-derived the same way
(:func:`recheck_refutation`): every certificate re-checks exactly, and the counterexample ones (kind
``"counterexample"``: a point of the statement's domain at which one goal fails by a positive margin, evaluated
exactly by the kernel) refute every declared refuted statement (``details["declared_refuted"]``) - each declared
statement ``S`` implies the statement ``T`` of one of them (:func:`fairtheory_kernel.check.implies`), so that ``T``
false makes ``S`` false (a counterexample of a *stronger* statement refutes nothing weaker); and the printed words
(``details["refuted_statements"]``) are the words of the declared statements.  A counterexample certificate never
counts towards ``proved``: it shows its statement false.

Why a *fresh* interpreter: a claim module (a ``--plugin``) runs code in the runner's process and can replace
the checker there (``check_proof = lambda *a: True``); a re-check in a fork of that process inherits the
replacement.  :class:`FreshChecker` starts ``python -I`` (isolated: no ``PYTHONPATH``, no user site, no current
directory on the path) with the directory of *this* ``fairtheory`` package first on ``sys.path`` and the worker
:mod:`fairtheory.proofs.recheck_worker`, which imports neither ``verify`` nor any plugin.  The runner starts it
before it imports any plugin, so the child's interpreter, path and modules are fixed before plugin code runs.  What
the runner's process can still do - it holds the pipes and prints the results - is out of any in-process
defence's reach; the report's JSON is what :func:`recheck_report` re-checks for a reviewer, in their own
interpreter (docs/proofs.md, "Checking a report you were sent").
"""

from __future__ import annotations

import json
import os
import secrets
import select
import subprocess
import sys
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Verdict", "recheck_row", "recheck_refutation", "recheck_report", "RowResult", "FreshChecker", "words_of",
           "ROOT", "OPEN_FDS", "close_inherited", "COUNTEREXAMPLE", "is_counterexample", "refuted_statement",
           "check_decided"]

#: the directory holding this ``fairtheory`` package: the fresh interpreter imports the same code from it
ROOT = str(Path(__file__).resolve().parents[2])
#: captured when this module is imported (the runner imports it before any plugin): what a plugin later assigns
#: to ``sys.executable`` or ``subprocess.Popen`` does not change the child the runner starts
_PYTHON = sys.executable
_POPEN = subprocess.Popen
#: the child: ``python -I -c BOOT ROOT WORKER`` (``-I`` puts neither the current directory nor ``PYTHONPATH`` on the
#: path); the worker file runs as a script, so no project package is imported before the kernel's exact checks
_BOOT = "import runpy, sys; sys.path.insert(0, sys.argv[1]); runpy.run_path(sys.argv[2], run_name='__main__')"
_WORKER = str(Path(__file__).resolve().with_name("recheck_worker.py"))
#: seconds a fresh interpreter gets on top of the certificates' own budgets (start-up and imports: sympy ~1 s)
STARTUP_SECONDS = 60.0
#: seconds falsification may take per certificate (a statement it cannot refute in time is not refuted)
FALSIFY_SECONDS = 60.0


@dataclass
class Verdict:
    """The re-check of one row: ``ok``; ``reason`` (one line) when not; ``words`` the declared statements in words
    (generated here); ``seconds`` of checking; ``falsify`` one entry per certificate (``"not refuted"``,
    ``"skipped: ..."``, ``"timeout"`` or the refuting instance)."""

    ok: bool
    reason: str = ""
    words: list[str] = field(default_factory=list)
    seconds: float = 0.0
    falsify: list[Any] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "reason": self.reason, "words": self.words, "seconds": self.seconds,
                "falsify": self.falsify}

    @classmethod
    def from_json(cls, d: Any) -> Verdict:
        """A verdict from the worker's JSON; anything malformed is a failed verdict."""
        if not (isinstance(d, Mapping) and isinstance(d.get("ok"), bool) and isinstance(d.get("reason"), str)
                and isinstance(d.get("words"), list) and all(isinstance(w, str) for w in d["words"])):
            return cls(False, "the fresh re-check sent a malformed answer")
        secs = d.get("seconds")
        return cls(d["ok"], d["reason"], list(d["words"]), float(secs) if isinstance(secs, (int, float)) else 0.0,
                   list(d.get("falsify") or []))


def words_of(statement: Any) -> str:
    """The printed words of a (frozen) statement: :func:`fairtheory_kernel.check.describe`, the function
    :func:`verify.core.bind_statement` prints with (the two must stay the same function)."""
    from fairtheory_kernel.check import describe

    return describe(statement)


def _certs(certificates: Any) -> list[Any]:
    return list(certificates) if isinstance(certificates, list) else [certificates]


#: the certificate kind of an exact refutation (:mod:`fairtheory_kernel.check`, kind ``"counterexample"``)
COUNTEREXAMPLE = "counterexample"


def is_counterexample(cert: Any) -> bool:
    """Whether ``cert`` is a certificate of kind :data:`COUNTEREXAMPLE` (it refutes its statement; it proves none)."""
    return isinstance(cert, Mapping) and cert.get("kind") == COUNTEREXAMPLE


def refuted_statement(cert: Any) -> dict[str, Any] | None:
    """The statement a counterexample certificate shows false, as a declared statement reads it (``{"kind":
    "symbolic", "statement": ...}``, canonical), or ``None`` (not a counterexample, or malformed).  The kernel's
    :func:`~fairtheory_kernel.check.statement_of` gives the canonical statement; whatever kind label it puts on it,
    the statement of a counterexample is a symbolic statement (common format, kind ``"counterexample"``)."""
    if not is_counterexample(cert):
        return None
    from fairtheory_kernel.check import statement_of

    st = statement_of(cert)
    if not isinstance(st, Mapping) or not isinstance(st.get("statement"), Mapping):
        return None
    if st.get("kind") not in (COUNTEREXAMPLE, "symbolic"):
        return None
    return {"kind": "symbolic", "statement": st["statement"]}


def recheck_row(certificates: Any, declared: Any, words: Sequence[str] | None = None, *,
                falsify: bool = True, checked: bool = False, quick: bool = False) -> Verdict:
    """Re-check one ``proved`` row from JSON data (module doc, facts 1-4); never raises on data.

    ``certificates``: one certificate dict or a list; ``declared``: the list of declared statements (frozen JSON);
    ``words``: the printed words to compare with the generated ones (``None``: not compared, e.g. when the runner
    asks for them); ``checked``: fact 1 was established by the caller in this process (the fresh worker runs the
    kernel's exact checks before it imports this module); ``quick``: the quick run's falsification (fact 4 with
    fewer horizons for ``pep-potential`` statements, :func:`fairtheory.proofs.falsify.falsify_certificate`; facts 1-3
    are re-checked in full either way)."""
    t0 = time.perf_counter()

    def fail(why: str, fals: list[Any] | None = None) -> Verdict:
        return Verdict(False, why, [], round(time.perf_counter() - t0, 6), fals or [])

    try:
        from fairtheory_kernel.check import check_proof, implies, statement_of

        certs = _certs(certificates)
        if not certs or certificates is None:
            return fail("no certificate")
        if not isinstance(declared, list) or not declared:
            return fail("no declared statement (a proved row carries details.declared_statements)")
        cx = [i for i, c in enumerate(certs) if is_counterexample(c)]
        if cx:
            return fail(f"certificate {cx[0]} of {len(certs)} is a counterexample: it shows its statement false and "
                        "proves nothing")
        # the bounded exact re-checks first: nothing else reads a certificate the kernel has not accepted
        for i, c in enumerate([] if checked else certs):
            if check_proof(c) is not True:
                kind = c.get("kind") if isinstance(c, Mapping) else None
                return fail(f"certificate {i} of {len(certs)} (kind {kind!r}) fails its exact re-check")
        # then the statements, read only from certificates the kernel accepted within its limits (the readers load
        # the kernel modules into this process, so later bounded re-checks, forked from it, do not import them again)
        stated = [statement_of(c) for c in certs]
        for k, want in enumerate(declared):
            if not any(s is not None and implies(s, want) is True for s in stated):
                return fail(f"no certificate implies declared statement {k + 1} of {len(declared)}")
        generated = [words_of(d) for d in declared]
        if words is not None:
            printed = list(words) if isinstance(words, (list, tuple)) else None
            if printed != generated:
                k = next((j for j in range(max(len(printed or []), len(generated)))
                          if printed is None or j >= len(printed) or j >= len(generated) or printed[j] != generated[j]),
                         0)
                return fail(f"the printed words of statement {k + 1} are not the words of the checked statement")
        fals: list[Any] = _falsify(certs, quick=quick is True) if falsify else []
        for i, res in enumerate(fals):
            if isinstance(res, Mapping):
                return fail(f"KERNEL BUG: certificate {i} re-checked but its statement is false at "
                            f"{json.dumps(res, sort_keys=True)[:400]}", fals)
    except Exception as exc:  # noqa: BLE001 - hostile JSON never stops the caller
        return fail(f"malformed row ({type(exc).__name__}: {str(exc)[:160]})")
    return Verdict(True, "", generated, round(time.perf_counter() - t0, 6), fals)


def recheck_refutation(certificates: Any, declared: Any, words: Sequence[str] | None = None, *,
                       checked: bool = False) -> Verdict:
    """Re-check one exact refutation from JSON data (module doc); never raises on data.

    ``certificates``: the row's certificate dict or list - at least one of kind :data:`COUNTEREXAMPLE`, and every one
    must re-check exactly (:func:`fairtheory_kernel.check.check_proof`, bounded; skipped when ``checked``: the caller
    did it in this process); ``declared``: the list of declared refuted statements (frozen JSON, ``@claim(...,
    refutes=...)``), each of which must imply the statement (:func:`refuted_statement`) of one counterexample
    certificate: refuting ``T`` refutes every ``S`` that implies ``T``, and nothing else (a declared statement may also
    be given in the kernel's form ``{"kind": "counterexample", "statement": S}``, "S is false": then the certificate's
    statement must imply it, :func:`fairtheory_kernel.check.implies`); ``words``: the printed words
    to compare with the generated ones (``None``: not compared).  ``Verdict.words`` are the declared statements in
    words."""
    t0 = time.perf_counter()

    def fail(why: str) -> Verdict:
        return Verdict(False, why, [], round(time.perf_counter() - t0, 6))

    try:
        from fairtheory_kernel.check import check_proof, implies

        if certificates is None:
            return fail("no certificate")
        certs = _certs(certificates)
        cx = [c for c in certs if is_counterexample(c)]
        if not cx:
            return fail(f"no certificate of kind {COUNTEREXAMPLE!r}")
        if not isinstance(declared, list) or not declared:
            return fail("no declared refuted statement (a row refuted exactly carries details.declared_refuted, "
                        "from @claim(..., refutes=...))")
        for i, c in enumerate([] if checked else certs):
            if check_proof(c) is not True:
                kind = c.get("kind") if isinstance(c, Mapping) else None
                return fail(f"certificate {i} of {len(certs)} (kind {kind!r}) fails its exact re-check")
        from fairtheory_kernel.check import statement_of

        stated = [(refuted_statement(c), statement_of(c)) for c in cx]

        def refutes(t: Any, own: Any, want: Any) -> bool:
            # ``want`` "S is false" in the kernel's counterexample form: the kernel's own implication (the
            # certificate's "T is false" implies "S is false" when S implies T); a plain statement S: S implies T
            if isinstance(want, Mapping) and want.get("kind") == COUNTEREXAMPLE:
                return own is not None and implies(own, want) is True
            return t is not None and implies(want, t) is True

        for k, want in enumerate(declared):
            if not any(refutes(t, own, want) for t, own in stated):
                return fail(f"no counterexample refutes declared statement {k + 1} of {len(declared)}: it implies the "
                            "statement of none of them (a counterexample of a stronger statement refutes no weaker one)")
        generated = [words_of(d) for d in declared]
        if words is not None and (not isinstance(words, (list, tuple)) or list(words) != generated):
            return fail("the printed words of the refuted statements are not the words of the checked statements")
    except Exception as exc:  # noqa: BLE001 - hostile JSON never stops the caller
        return fail(f"malformed row ({type(exc).__name__}: {str(exc)[:160]})")
    return Verdict(True, "", generated, round(time.perf_counter() - t0, 6))


def _unsampled_assumptions(cert: Any) -> bool:
    """Whether ``cert`` is a symbolic certificate whose statement has assumptions (``"assume"``) that the symbolic
    falsifier does not honour: it would draw points outside them and report a false kernel bug.  The falsifier says
    that it samples only points meeting them by ``HONOURS_ASSUMPTIONS = True``."""
    st = cert.get("statement") if isinstance(cert, Mapping) and cert.get("kind") == "symbolic" else None
    if not (isinstance(st, Mapping) and st.get("assume")):
        return False
    try:
        import fairtheory.proofs.falsify_symbolic as fs
    except ImportError:
        return True
    return getattr(fs, "HONOURS_ASSUMPTIONS", False) is not True


def _falsify_each(certs: list[Any], quick: bool = False) -> list[Any]:
    from fairtheory.proofs.falsify import falsify_certificate

    out = []
    for c in certs:
        if _unsampled_assumptions(c):
            out.append("skipped: the statement has assumptions, which the symbolic falsifier does not sample "
                       "(fairtheory.proofs.falsify_symbolic.HONOURS_ASSUMPTIONS)")
            continue
        try:
            res = falsify_certificate(c, quick=quick)
        except Exception as exc:  # noqa: BLE001 - a falsifier that cannot read a statement refutes nothing
            res = f"skipped: the falsifier raised {type(exc).__name__}"
        out.append(res if res is not None else "not refuted")
        if isinstance(res, Mapping):
            break
    return out


def _falsify(certs: list[Any], quick: bool = False) -> list[Any]:
    """:func:`fairtheory.proofs.falsify.falsify_certificate` of each certificate, in one child under a time and
    memory limit: per certificate the refuting instance (a dict; the list stops there), ``"not refuted"`` or
    ``"skipped: ..."``; ``["timeout"]`` when the child ran out of time (nothing refuted, nothing claimed)."""
    import fairtheory.proofs.falsify  # noqa: F401 - imported here once, not in every child
    from fairtheory_kernel.bounded import run_bounded

    status, result = run_bounded(_falsify_each, certs, quick, seconds=FALSIFY_SECONDS * max(1, len(certs)),
                                 memory_bytes=2 * 2**30)
    if status != "ok" or not isinstance(result, list):
        return ["timeout" if status == "timeout" else f"skipped: falsification {status} {result}"[:200]]
    return result


# ------------------------------------------------------------------------------------------------ a whole report
@dataclass
class RowResult:
    """One re-checked row of a report and its verdict; ``what``: ``"proved"``, ``"refuted exactly"`` or ``"report"``
    (the report's own ``decided`` or ``summary`` section disagreeing with its rows)."""

    id: str
    verdict: Verdict
    what: str = "proved"

    def line(self) -> str:
        v = self.verdict
        if v.ok:
            done = "re-checked" if self.what == "proved" else "refuted exactly, re-checked"
            return f"ok    {self.id}: {len(v.words)} statement(s) {done} ({v.seconds:.2f} s)"
        return f"FAIL  {self.id}: {v.reason}"


#: the statuses a report row can have (``verify.core.STATUSES``; a test keeps the two equal)
STATUSES = ("proved", "verified", "refuted", "inconclusive", "skipped", "not implemented", "error")


def recheck_report(doc: Any, *, falsify: bool = True) -> list[RowResult]:
    """Re-check every ``proved`` row of a report document (the parsed JSON of ``python -m verify --json``); a row
    that is not an object or whose status is not exactly one of :data:`STATUSES` (``"proved "``, ``"Proved"``)
    fails, named with its status (a viewer might show it as proved).  Raises ``ValueError`` when ``doc`` is not a
    report (no ``claims`` list)."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("claims"), list):
        raise ValueError("not a verify report: no 'claims' list")
    out = []
    for k, row in enumerate(doc["claims"]):
        rid = row.get("id") if isinstance(row, Mapping) else None
        rid = rid if isinstance(rid, str) else f"(row {k})"
        rid = "".join(ch if ch.isprintable() else "?" for ch in rid)[:200]
        status = row.get("status") if isinstance(row, Mapping) else None
        if not isinstance(status, str) or status not in STATUSES:
            shown = json.dumps(status)[:80] if isinstance(row, Mapping) else "(row is not an object)"
            out.append(RowResult(rid, Verdict(False, f"row {k}: unknown status {shown} (known: {', '.join(STATUSES)})")))
            continue
        details = row.get("details")
        exact = details.get("refuted_exactly") if isinstance(details, Mapping) else None
        if exact is not None and exact is not False:
            if status != "refuted" or exact is not True:
                out.append(RowResult(rid, Verdict(False, f"details.refuted_exactly is {json.dumps(exact)[:20]} on a "
                                                         f"row of status {json.dumps(status)[:20]} (only true, on a "
                                                         "refuted row)"), "refuted exactly"))
                continue
            words = details.get("refuted_statements")
            out.append(RowResult(rid, recheck_refutation(row.get("certificate"), details.get("declared_refuted"),
                                                         words if isinstance(words, list) else ["(none printed)"]),
                                 "refuted exactly"))
            continue
        if status != "proved":
            continue
        declared = details.get("declared_statements") if isinstance(details, Mapping) else None
        words = row.get("proved_statement")
        if not isinstance(words, list):
            out.append(RowResult(rid, Verdict(False, "a proved row without printed words (proved_statement)")))
            continue
        out.append(RowResult(rid, recheck_row(row.get("certificate"), declared, words, falsify=falsify)))
    if "decided" in doc:
        why = check_decided(doc, {r.id: r.verdict.ok for r in out})
        if why:
            out.append(RowResult("(decided)", Verdict(False, "the report's decided section disagrees with its rows: "
                                                             + why), "report"))
    summary = doc.get("summary")
    if summary is not None:  # a summary that counts rows the report does not have would vouch for them
        rows = [r for r in doc["claims"] if isinstance(r, Mapping)]
        counted = {st: sum(r.get("status") == st for r in rows) for st in STATUSES}
        wrong = ([] if isinstance(summary, Mapping) else ["(not an object)"]) + [
            f"{json.dumps(k)[:40]}: {json.dumps(v)[:20]} (the rows: {counted.get(k, 0) if isinstance(k, str) else 0})"
            for k, v in (summary.items() if isinstance(summary, Mapping) else ())
            if not (isinstance(k, str) and k in STATUSES and v == counted[k] and not isinstance(v, bool))]
        if wrong:
            out.append(RowResult("(summary)", Verdict(False, "the report's summary disagrees with its rows: "
                                                            + ", ".join(wrong)), "report"))
    return out


#: how a seed claim is decided, in a report's ``decided`` section (:mod:`verify.decided`)
DECIDED_HOW = ("proved", "refuted exactly")


def check_decided(doc: Mapping[str, Any], verdicts: Mapping[str, bool]) -> str:
    """Why the ``decided`` section of report ``doc`` (:func:`verify.decided.decide`) disagrees with its rows, or ``""``.

    Every entry said decided names (``by``) its own id or ``proofs.<id>``, a row of the report that ended so
    (``proved``, or ``refuted`` with ``details.refuted_exactly`` true) and whose re-check passed (``verdicts``: row
    id -> ok, from :func:`recheck_report`); the counts are the entries'.  A section that vouches for a row that is not
    there, or counts more than its entries, would print a larger "decided exactly" than the report holds."""
    sec = doc.get("decided")
    if not isinstance(sec, Mapping) or not isinstance(sec.get("claims"), Mapping):
        return "not an object with a 'claims' object"
    rows = {r.get("id"): r for r in doc.get("claims", []) if isinstance(r, Mapping) and isinstance(r.get("id"), str)}
    wrong: list[str] = []
    tally = {"proved": 0, "refuted exactly": 0}
    for cid, e in sec["claims"].items():
        name = json.dumps(cid)[:80]
        if not isinstance(e, Mapping) or not isinstance(e.get("decided"), bool):
            wrong.append(f"{name}: not an entry with a boolean 'decided'")
            continue
        if not e["decided"]:
            if e.get("how") is not None:
                wrong.append(f"{name}: undecided with how {json.dumps(e.get('how'))[:30]}")
            continue
        how, by = e.get("how"), e.get("by")
        row = rows.get(by) if isinstance(by, str) else None
        if how not in DECIDED_HOW:
            wrong.append(f"{name}: how {json.dumps(how)[:30]}")
        elif by not in (cid, f"proofs.{cid}") or row is None:
            wrong.append(f"{name}: decided by {json.dumps(by)[:80]}, which is not its row or proofs.<id> in the report")
        elif how == "proved" and row.get("status") != "proved":
            wrong.append(f"{name}: proved by {by}, a row of status {json.dumps(row.get('status'))[:20]}")
        elif how == "refuted exactly" and not (row.get("status") == "refuted" and isinstance(row.get("details"), Mapping)
                                               and row["details"].get("refuted_exactly") is True):
            wrong.append(f"{name}: refuted exactly by {by}, a row that is not refuted exactly")
        elif verdicts.get(by) is not True:
            wrong.append(f"{name}: {by} fails its re-check")
        else:
            tally[how] += 1
    n = sum(1 for e in sec["claims"].values() if isinstance(e, Mapping) and e.get("decided") is True)
    want = {"total": len(sec["claims"]), "decided": n, "proved": tally["proved"],
            "refuted_exactly": tally["refuted exactly"]}
    for k, v in want.items():
        if sec.get(k) != v or isinstance(sec.get(k), bool):
            wrong.append(f"{k}: {json.dumps(sec.get(k))[:20]} (the entries: {v})")
    return "; ".join(wrong)[:1000]


# ------------------------------------------------------------------------------------------------ fresh interpreter
#: this process's ends of the pipes to its fresh checkers: a process forked from it (a claim worker) closes them
#: first (:func:`close_inherited`), so claim code there can neither write requests to the checker nor read its answers
OPEN_FDS: set[int] = set()


def close_inherited() -> None:
    """In a forked child: close the inherited ends of the parent's checker pipes (:data:`OPEN_FDS`)."""
    for fd in list(OPEN_FDS):
        try:
            os.close(fd)
        except OSError:
            pass
    OPEN_FDS.clear()


def _shutdown(proc: subprocess.Popen[bytes]) -> None:
    for stream in (proc.stdin, proc.stdout):
        if stream is not None and not stream.closed:
            OPEN_FDS.discard(stream.fileno())
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


class FreshChecker:
    """A worker in a new Python interpreter that re-checks rows (:func:`recheck_row`) sent as JSON lines.

    Started on construction (``python -I``, module doc); each :meth:`check` sends one request - certificates,
    declared statements, printed words and a random nonce - and waits for the answer carrying that nonce.  A child
    that does not answer in time (the certificates' budgets plus :data:`STARTUP_SECONDS`), dies, or answers out
    of turn is killed and the row fails; the next request starts a new interpreter.  ``falsify``: also refute
    numerically (module doc, fact 4); ``quick``: with the quick run's horizons (:func:`recheck_row`)."""

    def __init__(self, *, falsify: bool = True, quick: bool = False) -> None:
        self.falsify, self.quick = falsify, quick is True
        self._proc: subprocess.Popen[bytes] | None = None
        self._buf = b""
        self.started = 0
        try:
            self._start()
        except OSError:  # no interpreter to start: every row asked about fails (request answers None)
            self._proc = None

    def _start(self) -> None:
        self._proc = None
        self._proc = _POPEN([_PYTHON, "-I", "-c", _BOOT, ROOT, _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, close_fds=True, cwd=ROOT)
        self._buf = b""
        self.started += 1
        OPEN_FDS.update((self._proc.stdin.fileno(), self._proc.stdout.fileno()))  # type: ignore[union-attr]
        weakref.finalize(self, _shutdown, self._proc)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _kill(self) -> None:
        if self._proc is not None:
            try:
                self._proc.kill()
            except OSError:
                pass
            _shutdown(self._proc)
            self._proc = None

    def request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """Send one request (``payload`` plus a nonce) and return the answer's JSON, or ``None`` (no answer in
        ``timeout`` s, a dead child, an answer without this nonce: the child is then killed)."""
        if self._proc is None or self._proc.poll() is not None:
            try:
                self._start()
            except OSError:
                return None
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        nonce = secrets.token_hex(16)
        line = json.dumps(dict(payload, nonce=nonce)).encode() + b"\n"
        deadline = time.monotonic() + timeout
        try:
            proc.stdin.write(line)
            proc.stdin.flush()
            fd = proc.stdout.fileno()
            while b"\n" not in self._buf:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    raise TimeoutError
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise EOFError
                self._buf += chunk
        except (OSError, TimeoutError, EOFError, ValueError):
            self._kill()
            return None
        answer, _, self._buf = self._buf.partition(b"\n")
        try:
            d = json.loads(answer)
        except ValueError:
            d = None
        if not isinstance(d, dict) or d.get("nonce") != nonce:
            self._kill()
            return None
        return d

    def check(self, certificates: Any, declared: Any, words: Sequence[str] | None = None) -> Verdict:
        """:func:`recheck_row` of these arguments, decided in the fresh interpreter."""
        return self._verdict("recheck", certificates, declared, words, falsify=self.falsify)

    def check_refutation(self, certificates: Any, declared: Any, words: Sequence[str] | None = None) -> Verdict:
        """:func:`recheck_refutation` of these arguments, decided in the fresh interpreter."""
        return self._verdict("recheck_refuted", certificates, declared, words, falsify=False)

    def _verdict(self, op: str, certificates: Any, declared: Any, words: Sequence[str] | None, *,
                 falsify: bool) -> Verdict:
        """Ask the fresh interpreter for the verdict of ``op`` within the certificates' budgets (plus the
        falsification's when it runs)."""
        from fairtheory_kernel.check import budget_seconds

        certs = _certs(certificates)
        timeout = STARTUP_SECONDS + sum(budget_seconds(c) for c in certs) + (FALSIFY_SECONDS * len(certs) if falsify
                                                                             else 0.0)
        payload = {"op": op, "certificates": certs, "declared": declared,
                   "words": list(words) if words is not None else None}
        if op == "recheck":
            payload |= {"falsify": self.falsify, "quick": self.quick}
        try:
            d = self.request(payload, timeout)
        except (TypeError, ValueError, RecursionError) as exc:
            return Verdict(False, f"the row is not JSON ({type(exc).__name__})")
        if d is None:
            return Verdict(False, f"the fresh re-check gave no answer within {timeout:.0f} s")
        return Verdict.from_json(d.get("verdict"))

    def modules(self) -> list[str]:
        """The modules loaded in the child (for tests: it must hold no ``verify`` and no plugin module)."""
        d = self.request({"op": "modules"}, STARTUP_SECONDS)
        return list(d.get("modules") or []) if d else []

    def close(self) -> None:
        if self._proc is not None:
            _shutdown(self._proc)
            self._proc = None
