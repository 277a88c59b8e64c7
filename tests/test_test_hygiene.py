"""Test hygiene, read from the test sources with ``ast``: tests import the library, and never assert on wall time.

1. **Tests import verify only to test verify.**  ``verify`` is the verification suite (the runner, the claim
   registry and the claims, the console, the report, the CLI); everything a claim computes with lives in
   ``fairtheory``.  A test module outside :data:`VERIFY_TESTS` imports nothing from ``verify``; inside it, every
   name it takes from ``verify`` is verify's own (nothing of ``fairtheory`` reached through a claim module), and
   from a claim module it takes only a module, a registered claim, the claim's data, or a name of
   :data:`CLAIM_PARTS` (the claims' declared statements and their peer-audit adapters).
2. **No test asserts on a wall-clock measurement** (they fail on a loaded machine): no ``assert`` involves a clock
   (``time.perf_counter``, ``time.time``, ``time.monotonic``, ``time.process_time``, their ``_ns`` forms) or a
   name computed from one, except the deadline tests of :data:`DEADLINE_TESTS`, whose generous bounds prove that a
   deadline fired (or was not waited for).  Speed is measured in ``benchmarks/``, side by side in one run; the
   benchmarks assert no time either.
"""

from __future__ import annotations

import ast
import importlib
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

#: test modules that import verify, each with what of verify it tests
VERIFY_TESTS: dict[str, str] = {
    "test_theorem1_every_round.py": "runs the claim proofs.rcfl.theorem1.every_round with a substituted certificate "
                                    "list (a certificate of another round must not prove it; verify.core.Context)",
    "test_adversarial.py": "verify.core.attach_adversarial and the report/table rows of adversarial outcomes",
    "test_claim_id_scanner.py": "the plugin loader's claim-id scanner (verify.plugins)",
    "test_claims.py": "the claim registry against the catalogue: every built-in claim runs to its expected status",
    "test_console.py": "the console table and detail lines (verify.console, verify.runner)",
    "test_console_lines.py": "the console's lines and widths (verify.console, verify.runner)",
    "test_docs_papers.py": "docs/papers.md against the claim catalogue and registry (every cited claim id exists)",
    "test_fedfv_findings.py": "the FedFV claims' outcomes: each reports its stored minimal counterexample",
    "test_fedmgda.py": "the FedMGDA+ claims' outcomes (run_claim)",
    "test_bracket_tally.py": "verify.core.BracketTally: equalities decided by rigorous brackets",
    "test_fuzz_verify.py": "fuzzing of verify's Outcome/Tally validation, runner and claim loading",
    "test_generalization.py": "the RC-FL generalisation claims' outcomes (quick mode)",
    "test_parallel.py": "verify.parallel's executors and worker counts",
    "test_peers.py": "the peer-audit claims (verify.claims.peers): adapters and recorded findings",
    "test_peers_fair.py": "the fair-FL peer-audit claims (verify.claims.peers): adapters and recorded findings",
    "test_peers_fedmgda.py": "the FedMGDA+ peer-audit claim and its comparator (verify.claims.peers)",
    "test_peers_flwr_timing.py": "the peer-audit support module's Flower timing structure (verify.claims.peers)",
    "test_pepit_parity.py": "the PEPit parity claims: registration and outcomes",
    "test_pepit_drs_finding.py": "the Douglas-Rachford finding of the PEPit operator claims: registration and outcome",
    "test_plugins.py": "the plugin API of verify (claim, Context, Outcome, Tally, entry points, atomic reports)",
    "test_proofs_certificate.py": "one slow test certifies the declared statements of proofs.localgd.rho0_points",
    "test_proofs_falsify.py": "the proof claims' falsification parts, their declared statements and the runner",
    "test_proofs_falsify_quick.py": "the quick run's falsification: the proof claims' certificates and the runner's mode",
    "test_proofs_forgeries_words.py": "forged statements against the claim registry and the runner's binding",
    "test_proofs_recheck.py": "the runner's report as re-checked by recheck",
    "test_proofs_shipped.py": "the shipped certificates against the proof claims' declared statements and run_claim",
    "test_proofs_symbolic.py": "the symbolic certificates prove exactly the proof claims' declared statements",
    "test_qffl_claims.py": "the q-FFL claims: registration and outcomes",
    "test_rcfl_findings.py": "the recorded RC-FL finding: the refuted claim's counterexample and outcome",
    "test_recheck_status.py": "recheck against the runner's status vocabulary (verify.core.STATUSES)",
    "test_readme_guide.py": "README's generated blocks against verify.readme_summary's markers and rendering",
    "test_readme_snippets.py": "README's verify snippets against the registry",
    "test_readme_summary.py": "verify.readme_summary (README's generated summary and findings blocks)",
    "test_report_rows.py": "verify.report and the runner's rows",
    "test_report_json_cache.py": "verify.report.to_json with the runner's row cache",
    "test_robustness_algorithms.py": "verify's Tally/Context validation, the CLI and the peer-audit comparator",
    "test_sampling.py": "verify.sampling (the Hypothesis example counts of the claims)",
    "test_verify_proved.py": "the runner's binding of certificates to declared statements (proved)",
    "test_verify_robustness.py": "the runner, verify.parallel and claim loading under failures",
    "test_verify_runner.py": "the runner, the catalogue and the report files",
    "test_worstcase_catalogue.py": "the PEPit parity claims are registered for every catalogue example",
    "test_worstcase_federated.py": "the worstcase.* claims (FedProx, local SGD, Scaffold): registration and outcomes",
    "test_worstcase_minmax.py": "the min-max claims: registration, outcomes, a forged twin refuted",
    "test_worstcase_operators.py": "the PEPit operator claims are registered for every operator example",
    "test_decided_fedfv.py": "004 decided exactly: the fedfv counterexample and proof certificates against the declared "
                             "statements of verify.claims.decided_fedfv, and the claims' outcomes",
    "test_decided_qffl.py": "003 decided exactly: the proofs.qffl.* certificates against their declared statements, and "
                            "the claims' outcomes (verify.core.Context)",
    "test_decided_rcfl.py": "000/002 decided exactly: the declared statements of the rcfl decided claims and run_claim of "
                            "proofs.rcfl.* / rcfl.lemma1.hcvar_conditional (proved / refuted exactly)",
    "test_decided_relfair.py": "001 decided exactly: the proofs.relfair.* certificates against their declared statements, "
                               "and the claims' outcomes",
    "test_decided_runner.py": "exact refutations in the runner (refutes=, counterexample certificates, the fresh gate) and "
                              "verify.decided in the reports and console",
    "test_recheck_counterexample.py": "recheck of rows refuted exactly and of the decided section of a runner report "
                                      "(verify.runner, verify.decided)",
    "test_test_hygiene.py": "this file: it resolves what the other tests import from verify",
    "sweeps/hostile_pep_units.py": "the hostile sweep of the PEP-unit claims, run through run_claim",
    "sweeps/hostile_worstcase_proofs.py": "the hostile sweep of the proof claims and verify's outcome validation",
}

#: names of claim modules a test may take that are neither a registered claim nor data: the claims' declared
#: statements (what a certificate must imply) and the peer audit's adapters (how each peer library is called)
CLAIM_PARTS: dict[tuple[str, str], str] = {
    ("verify.claims.proofs_pep", "rho0_formula"): "the value the rho0 claims declare",
    ("verify.claims.proofs_pep", "rho0_statement"): "the statement proofs.localgd.rho0_points declares",
    ("verify.claims.proofs_pep", "rho0_family_statement"): "the statement proofs.localgd.rho0_formula declares",
    ("verify.claims.proofs_pep", "theorem1_family_statement"): "the statement proofs.thm1.every_step declares",
    ("verify.claims.proofs_potential", "gd_statement"): "the statement proofs.potential.gd declares",
    ("verify.claims.proofs_potential", "local_statement"): "the statement proofs.potential.local_gd declares",
    ("verify.claims.proofs_potential", "pepit_statement"): "the statements proofs.potential.pepit declares",
    ("verify.claims.proofs_potential", "thm1_hetero"): "the heterogeneity term of the Thm. 1 potential statement",
    ("verify.claims.decided_fedfv", "statement_theorem1_absolute"): "the statement fedfv.theorem1.absolute refutes",
    ("verify.claims.decided_fedfv", "statement_theorem2_absolute"): "the statement fedfv.theorem2.absolute refutes",
    ("verify.claims.decided_fedfv", "statement_last_target"): "the statement fedfv.theorem1.last_target refutes",
    ("verify.claims.decided_fedfv", "statement_theorem3_descent"): "the statement fedfv.theorem3.descent refutes",
    ("verify.claims.decided_fedfv", "statement_theorem3_pareto"): "the statement fedfv.theorem3.pareto refutes",
    ("verify.claims.decided_fedfv", "statement_projection_step"): "the statement proofs.fedfv.projection.step declares",
    ("verify.claims.decided_fedfv", "statement_theorem4_descent"): "the statement proofs.fedfv.theorem4.descent declares",
    ("verify.claims.decided_rcfl", "_settle"): "the rcfl proof claims' settle step: certificates bound to the "
                                               "declared statement (a claim is proved only with every part)",
    ("verify.claims.decided_qffl", "statement_lemma6"): "the statement proofs.qffl.lemma6.variance declares",
    ("verify.claims.decided_qffl", "statement_lemma7"): "the statements proofs.qffl.lemma7.angle declares",
    ("verify.claims.decided_qffl", "statement_lemma8"): "a statement proofs.qffl.lemma8.entropy_sign declares",
    ("verify.claims.decided_qffl", "statement_lemma10"): "the statements proofs.qffl.lemma10.holder_positive declares",
    ("verify.claims.decided_qffl", "statement_limits_sandwich"): "a statement proofs.qffl.limits.sandwich declares",
    ("verify.claims.decided_qffl", "statement_limits_epsilon"): "a statement proofs.qffl.limits.sandwich declares",
}
#: claim packages whose every name is a claim part: the peer audit (adapters calling peer libraries, comparators)
CLAIM_PACKAGES: dict[str, str] = {
    "verify.claims.peers": "the peer audit: adapters that call each peer library and the comparator of its claims",
}

#: tests whose assertions on wall time are deadline checks, each with the bound and why it is generous
DEADLINE_TESTS: dict[tuple[str, str], str] = {
    ("test_exact_linalg.py", "test_run_bounded_ok_returns_when_the_child_answers"):
        "a 0.2 s child under a 600 s limit returns in < 300 s: the answer does not wait for the deadline",
    ("test_exact_linalg.py", "test_run_bounded_timeout_kills"):
        "a 1 s limit fires: not before 1 s, and within 60 s",
}

CLOCKS = {"perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic", "monotonic_ns", "process_time",
          "process_time_ns", "thread_time", "thread_time_ns", "default_timer", "now", "utcnow", "today"}
#: the modules (and ``datetime``'s classes) whose clock functions :data:`CLOCKS` names
CLOCK_MODULES = {"time": "time", "timeit": "timeit", "datetime": "datetime", "datetime.datetime": "datetime",
                 "datetime.date": "date"}


def _sources() -> list[Path]:
    return sorted([*TESTS.glob("*.py"), *TESTS.glob("sweeps/*.py")])


def _rel(path: Path) -> str:
    return path.relative_to(TESTS).as_posix()


def _is_verify(module: str | None) -> bool:
    return module is not None and (module == "verify" or module.startswith("verify."))


# ------------------------------------------------------------------------------------------------ 1. verify imports
def verify_imports(tree: ast.AST) -> list[tuple[int, str, str | None, str | None]]:
    """``(line, module, name, alias)`` of every import from ``verify`` anywhere in ``tree`` (functions included;
    ``name`` is ``None`` for ``import verify.x [as y]``)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and _is_verify(node.module):
            out += [(node.lineno, node.module, a.name, a.asname or a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name, None, a.asname) for a in node.names if _is_verify(a.name)]
    return out


def claim_attributes(tree: ast.AST, imports: list[tuple[int, str, str | None, str | None]]) -> list[tuple[int, str, str]]:
    """``(line, module, attribute)`` of every ``alias.attribute`` read on a name bound to a ``verify.claims`` module
    (``import verify.claims.x as m`` / ``from verify.claims import x as m``; ``m.attr`` anywhere in the file)."""
    aliases: dict[str, str] = {}
    for _, module, name, alias in imports:
        full = module if name is None else f"{module}.{name}"
        if alias and full.startswith("verify.claims.") and (name is None or _is_module(full)):
            aliases[alias] = full
    return [(node.lineno, aliases[node.value.id], node.attr) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases]


def _is_module(dotted: str) -> bool:
    try:
        importlib.import_module(dotted)
    except ImportError:
        return False
    return True


def _registered_checks() -> set[int]:
    from verify.core import REGISTRY

    return {id(spec.check) for spec in REGISTRY.values()}


def library_through_verify(module: str, name: str) -> str | None:
    """Why taking ``name`` from ``module`` (a verify module) is not testing verify, or ``None`` when it is."""
    obj = getattr(importlib.import_module(module), name, None)
    if obj is None:
        return None  # a submodule imported by name, or a name another check reports missing
    if isinstance(obj, types.ModuleType):
        return None if _is_verify(obj.__name__) else f"{obj.__name__} is library code"
    origin = getattr(obj, "__module__", None)
    if isinstance(origin, str) and origin.startswith(("fairtheory.", "fairtheory_kernel.")) and callable(obj):
        return f"{name} is {origin}.{name}: import it from the library"
    if not module.startswith("verify.claims.") or any(module.startswith(p) for p in CLAIM_PACKAGES):
        return None
    if (module, name) in CLAIM_PARTS or not callable(obj) or id(obj) in _registered_checks():
        return None
    return f"{module}.{name} is neither a claim, its data nor a declared statement: move it to fairtheory"


def test_verify_tests_and_claim_parts_exist() -> None:
    for rel in VERIFY_TESTS:
        assert (TESTS / rel).is_file(), f"VERIFY_TESTS lists {rel}, which is gone: remove it"
    for (module, name), why in CLAIM_PARTS.items():
        assert why and callable(getattr(importlib.import_module(module), name, None)), (module, name)


def test_the_library_detector() -> None:
    """Library code reached through a claim module, and a claim module's helper that is not a claim, are caught; the
    registry, a registered claim, a claim's data and a declared statement are not."""
    assert "fairtheory.worstcase.minmax_twins" in library_through_verify("verify.claims.worstcase_minmax", "hand_scaffpd")
    assert "move it to fairtheory" in library_through_verify("verify.claims.proofs_pep", "huber_instance_value")
    assert library_through_verify("verify.core", "REGISTRY") is None
    assert library_through_verify("verify.claims.rcfl_objective", "check_hcvar_conditional") is None
    assert library_through_verify("verify.claims.rcfl_objective", "EQ_TOL") is None
    assert library_through_verify("verify.claims.proofs_pep", "rho0_statement") is None


def test_only_the_verify_tests_import_verify() -> None:
    offenders = []
    for path in _sources():
        rel = _rel(path)
        found = verify_imports(ast.parse(path.read_text(), str(path)))
        if found and rel not in VERIFY_TESTS:
            offenders += [f"tests/{rel}:{line}: {module}{'.' + name if name else ''}" for line, module, name, _ in found]
        if rel in VERIFY_TESTS and rel != "test_test_hygiene.py":
            assert found, f"tests/{rel} no longer imports verify: remove it from VERIFY_TESTS"
    assert not offenders, "import the library (fairtheory), not verify, in these tests:\n" + "\n".join(offenders)


def test_no_library_code_is_taken_from_verify() -> None:
    """Nor in the figures and benchmarks: they may use verify's own machinery (its executors, the peer audit's
    adapters), never library code through it."""
    offenders = []
    others = [*sorted((ROOT / "figures").glob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py"))]
    for path in [*_sources(), *others]:
        tree = ast.parse(path.read_text(), str(path))
        found = verify_imports(tree)
        uses = [(line, module, name) for line, module, name, _ in found if name is not None]
        uses += claim_attributes(tree, found)
        for line, module, name in uses:
            why = library_through_verify(module, name)
            if why:
                offenders.append(f"{path.relative_to(ROOT).as_posix()}:{line}: {why}")
    assert not offenders, "\n".join(offenders)


# ------------------------------------------------------------------------------------------------ 2. wall-clock asserts
def _clock_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """``(modules, functions)``: the names under which the file binds a clock module (``time``, ``timeit``,
    ``datetime`` and its classes) and the clock functions themselves."""
    modules, functions = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name in CLOCK_MODULES}
        elif isinstance(node, ast.ImportFrom) and node.module in ("time", "timeit", "datetime"):
            functions |= {a.asname or a.name for a in node.names if a.name in CLOCKS}
            modules |= {a.asname or a.name for a in node.names if f"{node.module}.{a.name}" in CLOCK_MODULES}
    return modules, functions


def _reads_clock(node: ast.AST, modules: set[str], functions: set[str], tainted: set[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            base = f.value.value if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) else None
            if isinstance(f, ast.Attribute) and f.attr in CLOCKS and isinstance(f.value, ast.Name) \
                    and f.value.id in modules:
                return True
            if isinstance(f, ast.Attribute) and f.attr in CLOCKS and isinstance(base, ast.Name) and base.id in modules:
                return True  # datetime.datetime.now()
            if isinstance(f, ast.Name) and f.id in functions:
                return True
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in tainted:
            return True
    return False


def _targets(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Assign):
        return [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def wall_clock_asserts(source: str) -> list[tuple[str, int]]:
    """``(function, line)`` of every ``assert`` that involves a clock reading or a name computed from one (within
    the same function, to a fixed point: ``t0 = perf_counter()``, ``dt = perf_counter() - t0``, ``times.append(dt)``
    taints ``t0``, ``dt`` and ``times``); module-level asserts are reported under ``"<module>"``."""
    tree = ast.parse(source)
    modules, functions = _clock_names(tree)
    scopes: list[tuple[str, ast.AST]] = [("<module>", tree)]
    scopes += [(n.name, n) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    out = []
    for name, scope in scopes:
        tainted: set[str] = set()
        changed = True
        while changed:
            changed = False
            for node in ast.walk(scope):
                value = getattr(node, "value", None)
                new: list[str] = []
                if _targets(node) and value is not None and _reads_clock(value, modules, functions, tainted):
                    new = _targets(node)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        isinstance(node.func.value, ast.Name) and node.func.attr in ("append", "extend", "add") and \
                        any(_reads_clock(a, modules, functions, tainted) for a in node.args):
                    new = [node.func.value.id]
                if set(new) - tainted:
                    tainted |= set(new)
                    changed = True
        for node in ast.walk(scope):
            if isinstance(node, ast.Assert) and _reads_clock(node.test, modules, functions, tainted):
                inner = [n.name for n in ast.walk(scope) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and n is not scope and node in ast.walk(n)]
                if not inner:  # reported once, under the innermost function
                    out.append((name, node.lineno))
    return out


def test_the_wall_clock_detector() -> None:
    flagged = wall_clock_asserts(
        "import time as tm\nfrom time import perf_counter as pc\n"
        "def a():\n    t0 = tm.perf_counter()\n    f()\n    assert tm.perf_counter() - t0 < 5\n"
        "def b():\n    t0 = pc()\n    f()\n    dt = pc() - t0\n    assert dt < 1.0\n"
        "def c():\n    times = []\n    for _ in range(3):\n        t = tm.monotonic()\n        times.append(tm.monotonic() - t)\n"
        "    assert sorted(times)[1] < 0.2\n"
        "def d():\n    c0 = tm.process_time()\n    x = f()\n    cpu = tm.process_time() - c0\n    assert x == 1\n"
        "    assert cpu <= 60.0\n")
    assert flagged == [("a", 6), ("b", 11), ("c", 17), ("d", 23)]
    assert wall_clock_asserts("import time\ndef e():\n    deadline = 3\n    assert run(seconds=1) == ('timeout', None)\n"
                              "    assert time.sleep(0) is None or deadline\n") == []
    assert wall_clock_asserts("def f(time):\n    assert time.time() < 1\n") == []  # not the time module
    assert wall_clock_asserts("import datetime\nfrom timeit import default_timer as tick\nfrom datetime import datetime as dt\n"
                              "def g():\n    a = datetime.datetime.now()\n    assert (dt.now() - a).seconds < 2\n"
                              "def h():\n    t = tick()\n    assert tick() - t < 1\n") == [("g", 6), ("h", 9)]


def test_no_test_asserts_on_wall_time() -> None:
    offenders = []
    for path in _sources():
        for func, line in wall_clock_asserts(path.read_text()):
            if (_rel(path), func) not in DEADLINE_TESTS:
                offenders.append(f"tests/{_rel(path)}:{line} ({func})")
    assert not offenders, ("assert behaviour, not speed (speed goes to benchmarks/, side by side in one run):\n"
                           + "\n".join(offenders))


def test_deadline_tests_exist_and_still_time_something() -> None:
    for (rel, func), why in DEADLINE_TESTS.items():
        funcs = {f for f, _ in wall_clock_asserts((TESTS / rel).read_text())}
        assert why and func in funcs, f"{rel}::{func} asserts no wall time any more: remove it from DEADLINE_TESTS"


def _benchmarks() -> Iterator[Path]:
    yield from sorted((ROOT / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("path", list(_benchmarks()), ids=lambda p: p.name)
def test_benchmarks_report_times_and_assert_none(path: Path) -> None:
    assert wall_clock_asserts(path.read_text()) == []
