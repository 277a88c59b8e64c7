"""No import cycles in ``fairtheory/``, ``fairtheory_kernel/`` and ``verify/``, and the kernel imports none of them.

An ast-based analyzer reads every module of the three packages and draws an edge ``a -> b`` for each import
of ``b`` by ``a``:

* ``import a.b.c`` and ``from a.b import c`` name the deepest module they reach (``a.b.c`` when it is a
  module, else ``a.b``); relative imports (``from . import x``, ``from ..sdp import PEP``) are resolved
  against the importing module (a package's ``__init__`` is its own base);
* importing ``a.b.c`` also runs the ``__init__`` of the packages ``a`` and ``a.b`` on the way: an edge to each of
  them that is not a package of the importing module itself (those are already being imported), so a cycle through
  an eager package ``__init__`` is found;
* ``importlib.import_module("a.b")`` / ``__import__("a.b")`` with a literal name count like ``import a.b``;
* a package that exports lazily (:func:`fairtheory._lazy.lazy_exports` with literal ``modules=`` / ``names=``):
  ``from pkg import name`` of a lazily exported name is an import of the submodule that defines it (its
  ``__getattr__`` imports that submodule on first use);
* imports inside functions, methods and class bodies **count** (an import moved into a function to dodge a
  cycle is still a cycle); only imports under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) are left
  out, since they never run.

The rule for imports inside functions: they are kept only for heavy optional dependencies (torch, ray, sdpa,
clarabel, cvxpy, scipy's slower parts, ...) and for lazily loaded subpackages (PEP 562 ``__getattr__`` in a
package ``__init__``); an import of a project module placed in a function to break a cycle is not allowed -
the analyzer below sees it and the cycle test fails.

Each strongly connected component with more than one module (or a module importing itself) is a cycle.
The analyzer is itself tested on a tiny synthetic package with known cycles, so it cannot silently find
nothing.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fairtheory", "fairtheory_kernel", "verify")


# ------------------------------------------------------------------ the analyzer
@dataclass(frozen=True)
class Edge:
    """One import: ``source`` imports ``target`` at ``line``; ``in_function`` when inside a def; ``via_package``
    when ``target`` is a package whose ``__init__`` runs on the way to the module named."""

    source: str
    target: str
    line: int
    in_function: bool
    via_package: bool = False


def module_map(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """``{dotted module name: path}`` of every ``.py`` file under ``root/<package>`` (``__init__`` -> package)."""
    mods: dict[str, Path] = {}
    for pkg in packages:
        for dirpath, dirnames, filenames in os.walk(root / pkg):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            for f in sorted(filenames):
                if not f.endswith(".py"):
                    continue
                path = Path(dirpath) / f
                parts = list(path.relative_to(root).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                mods[".".join(parts)] = path
    return mods


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _resolve_relative(module: str, is_package: bool, target: str | None, level: int) -> str:
    """Absolute name of ``from <level dots><target> import ...`` written in ``module``."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level - 1 >= len(base):
        raise ImportError(f"relative import beyond the top package in {module}")
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _deepest_known(name: str, known: Iterable[str] | dict[str, Path]) -> str | None:
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        candidate = ".".join(parts[:k])
        if candidate in known:
            return candidate
    return None


def raw_imports(module: str, path: Path, is_package: bool) -> list[tuple[str, list[str], int, bool]]:
    """``(absolute base, imported names, line, in_function)`` of each import that can run (``TYPE_CHECKING``
    blocks left out).  ``import a.b`` gives ``("a.b", [], ...)``; ``from a import b, c`` gives
    ``("a", ["b", "c"], ...)``; a literal ``importlib.import_module("a.b")`` gives ``("a.b", [], ...)``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[tuple[str, list[str], int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:  # the else branch runs
                visit(child, in_function)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.append((alias.name, [], node.lineno, in_function))
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_relative(module, is_package, node.module, node.level)
            out.append((base, [a.name for a in node.names if a.name != "*"], node.lineno, in_function))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("import_module", "__import__"):
                out.append((node.args[0].value, [], node.lineno, in_function))
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    return out


def lazy_names(path: Path) -> dict[str, str]:
    """``{name: submodule}`` of a package ``__init__`` that calls ``lazy_exports(__name__, modules=[...],
    names={submodule: [names]})`` at module level with literal arguments (empty otherwise)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: dict[str, str] = {}
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) != "lazy_exports":
            continue
        for kw in call.keywords:
            value = ast.literal_eval(kw.value)
            if kw.arg == "modules":
                out.update({m: m for m in value})
            elif kw.arg == "names":
                out.update({n: sub for sub, ns in value.items() for n in ns})
    return out


def import_graph(root: Path, packages: Iterable[str]) -> tuple[dict[str, Path], list[Edge]]:
    """The modules of ``packages`` under ``root`` and the imports between them (edges to outside modules
    dropped; a module's import of itself kept)."""
    mods = module_map(root, packages)
    lazy = {m: lazy_names(p) for m, p in mods.items() if p.name == "__init__.py"}
    edges: list[Edge] = []
    for mod, path in mods.items():
        is_package = path.name == "__init__.py"
        for base, names, line, in_function in raw_imports(mod, path, is_package):
            targets: set[str | None] = set()
            for n in names or [None]:
                sub = f"{base}.{n}" if n else base
                if sub not in mods and n in lazy.get(base, {}):
                    sub = f"{base}.{lazy[base][n]}"  # a lazily exported name: the submodule defining it
                targets.add(sub if sub in mods else _deepest_known(base, mods))
            targets.discard(None)
            own = {".".join(mod.split(".")[:k]) for k in range(1, mod.count(".") + 2)}
            for t in sorted(targets):  # type: ignore[type-var]
                edges.append(Edge(mod, t, line, in_function))
                parts = t.split(".")
                for k in range(1, len(parts)):
                    pkg = ".".join(parts[:k])
                    if pkg in mods and pkg not in own and pkg not in targets:
                        edges.append(Edge(mod, pkg, line, in_function, via_package=True))
    return mods, edges


def cycles(nodes: Iterable[str], edges: Iterable[Edge]) -> list[list[str]]:
    """Strongly connected components with a cycle (more than one module, or a self-import), each sorted;
    Tarjan's algorithm, iterative."""
    succ: dict[str, list[str]] = {v: [] for v in nodes}
    self_loops: set[str] = set()
    for e in edges:
        succ.setdefault(e.source, []).append(e.target)
        succ.setdefault(e.target, [])
        if e.source == e.target:
            self_loops.add(e.source)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(succ):
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            targets = succ[v]
            if i < len(targets):
                work.append((v, i + 1))
                w = targets[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in self_loops:
                    found.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return sorted(found)


def describe(component: list[str], edges: Iterable[Edge], mods: dict[str, Path]) -> str:
    """The imports inside one cycle, ``file:line  a -> b``, for the failure message."""
    members = set(component)
    lines = [f"  {mods[e.source].relative_to(ROOT) if mods[e.source].is_relative_to(ROOT) else mods[e.source]}:"
             f"{e.line}  {e.source} -> {e.target}{'  (in a function)' if e.in_function else ''}"
             f"{'  (its package __init__)' if e.via_package else ''}"
             for e in edges if e.source in members and e.target in members]
    return f"cycle of {len(component)} modules:\n" + "\n".join(sorted(set(lines)))


# ------------------------------------------------------------------ the analyzer on a synthetic package
def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


SYNTHETIC = {
    "pkg/__init__.py": "from pkg.base import A\n",
    "pkg/base.py": "import math\nA = 1\n",
    # a <-> b through a relative import at module level and an import inside a function
    "pkg/a.py": "from . import b\nX = 1\n",
    "pkg/b.py": "def f():\n    from .a import X\n    return X\n",
    # c -> sub.d (absolute, dotted) -> sub.e ("from pkg.sub import e": a submodule) -> c via importlib
    "pkg/c.py": "import pkg.sub.d\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/d.py": "from pkg.sub import e\n",
    "pkg/sub/e.py": "import importlib\n\ndef g():\n    return importlib.import_module('pkg.c')\n",
    # TYPE_CHECKING imports never run: no cycle f <-> g
    "pkg/f.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.g import Y\nZ = 1\n",
    "pkg/g.py": "import typing\nfrom .f import Z\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    Y = Z\n",
    # h imports a name of the package __init__ (not a submodule): edge h -> pkg; pkg imports base only
    "pkg/h.py": "from pkg import A\n",
    # self-import is a cycle of one
    "pkg/s.py": "class K:\n    import pkg.s\n",
    "other/__init__.py": "import pkg.base\n",
}


def test_analyzer_finds_known_cycles(tmp_path: Path) -> None:
    _write(tmp_path, SYNTHETIC)
    mods, edges = import_graph(tmp_path, ["pkg", "other"])
    assert set(mods) == {"pkg", "pkg.base", "pkg.a", "pkg.b", "pkg.c", "pkg.sub", "pkg.sub.d", "pkg.sub.e",
                         "pkg.f", "pkg.g", "pkg.h", "pkg.s", "other"}
    pairs = {(e.source, e.target) for e in edges}
    assert ("pkg.a", "pkg.b") in pairs  # "from . import b": the submodule, not the package
    assert ("pkg.a", "pkg") not in pairs
    assert ("pkg.b", "pkg.a") in pairs  # inside a function, relative
    assert [e.in_function for e in edges if (e.source, e.target) == ("pkg.b", "pkg.a")] == [True]
    assert ("pkg.c", "pkg.sub.d") in pairs
    assert ("pkg.sub.d", "pkg.sub.e") in pairs
    assert ("pkg.sub.e", "pkg.c") in pairs  # importlib.import_module with a literal
    assert ("pkg.f", "pkg.g") not in pairs  # TYPE_CHECKING left out
    assert ("pkg.g", "pkg.f") in pairs
    assert ("pkg.h", "pkg") in pairs
    assert ("other", "pkg.base") in pairs
    assert ("pkg", "pkg.base") in pairs
    assert not any(e.target == "math" or e.target == "importlib" for e in edges)  # outside modules dropped
    found = cycles(mods, edges)
    assert found == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.sub.d", "pkg.sub.e"], ["pkg.s"]]
    text = describe(found[0], edges, mods)
    assert "pkg.b -> pkg.a  (in a function)" in text


def test_analyzer_follows_package_inits(tmp_path: Path) -> None:
    """``r.b`` importing ``q.c`` runs ``q/__init__``, which imports ``q.a``, which imports ``r.b``: a cycle through the
    eager package ``__init__``; a module importing a sibling in its own package adds no edge to the package."""
    _write(tmp_path, {
        "q/__init__.py": "from q.a import A\n",
        "q/a.py": "import r.b\nA = 1\n",
        "q/c.py": "X = 1\n",
        "q/d.py": "from q.c import X\n",  # q is d's own package (already being imported): no edge d -> q
        "r/__init__.py": "",
        "r/b.py": "import q.c\n",
    })
    mods, edges = import_graph(tmp_path, ["q", "r"])
    pairs = {(e.source, e.target, e.via_package) for e in edges}
    assert ("r.b", "q.c", False) in pairs and ("r.b", "q", True) in pairs
    assert ("q.a", "r.b", False) in pairs and ("q.a", "r", True) in pairs
    assert ("q.d", "q.c", False) in pairs and not any(e.source == "q.d" and e.target == "q" for e in edges)
    found = cycles(mods, edges)
    assert found == [["q", "q.a", "r.b"]]
    assert "(its package __init__)" in describe(found[0], edges, mods)


def test_analyzer_resolves_lazy_exports(tmp_path: Path) -> None:
    """``from z import f`` of a name ``z/__init__`` exports lazily is an import of ``z.impl``; ``z.impl`` importing a
    name ``z/__init__`` defines itself (not lazy) is an import of ``z``: no cycle, as at run time.  ``z.impl``
    importing ``y.w``, which imports ``f`` from ``z``: a cycle."""
    init = ("from fairtheory._lazy import lazy_exports\nBASE = 1\n"
            "__getattr__, __dir__, __all__ = lazy_exports(__name__, modules=['impl'], names={'impl': ['f']})\n")
    _write(tmp_path, {"z/__init__.py": init, "z/impl.py": "from z import BASE\ndef f():\n    return BASE\n",
                      "y/__init__.py": "", "y/u.py": "from z import f\n"})
    mods, edges = import_graph(tmp_path, ["z", "y"])
    pairs = {(e.source, e.target) for e in edges}
    assert ("y.u", "z.impl") in pairs and ("y.u", "z") in pairs  # the submodule, and the package init on the way
    assert ("z.impl", "z") in pairs
    assert cycles(mods, edges) == []
    _write(tmp_path, {"z/impl.py": "from y import w\ndef f():\n    return 1\n", "y/w.py": "from z import f\n"})
    mods, edges = import_graph(tmp_path, ["z", "y"])
    assert cycles(mods, edges) == [["y.w", "z.impl"]]


def test_analyzer_relative_beyond_top_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from .. import x\n"})
    with pytest.raises(ImportError, match="beyond the top package"):
        import_graph(tmp_path, ["pkg"])


def test_analyzer_no_cycle_once_broken(tmp_path: Path) -> None:
    files = dict(SYNTHETIC)
    files["pkg/b.py"] = "def f():\n    return 1\n"
    files["pkg/sub/e.py"] = "def g():\n    return 1\n"
    files["pkg/s.py"] = "class K:\n    pass\n"
    _write(tmp_path, files)
    mods, edges = import_graph(tmp_path, ["pkg", "other"])
    assert len(edges) > 5
    assert cycles(mods, edges) == []


# ------------------------------------------------------------------ the project
@pytest.fixture(scope="module")
def project() -> tuple[dict[str, Path], list[Edge]]:
    return import_graph(ROOT, PACKAGES)


def test_project_graph_is_not_empty(project: tuple[dict[str, Path], list[Edge]]) -> None:
    mods, edges = project
    assert {"fairtheory", "fairtheory.worstcase.local_gd", "fairtheory_kernel.check", "verify.core"} <= set(mods)
    assert len(mods) > 100
    assert len(edges) > 500
    assert any(e.in_function for e in edges)


def test_no_import_cycles(project: tuple[dict[str, Path], list[Edge]]) -> None:
    mods, edges = project
    found = cycles(mods, edges)
    assert found == [], "\n".join(describe(c, edges, mods) for c in found)


def test_kernel_imports_nothing_of_the_project(project: tuple[dict[str, Path], list[Edge]]) -> None:
    mods, _ = project
    bad: list[str] = []
    for mod, path in mods.items():
        if not (mod == "fairtheory_kernel" or mod.startswith("fairtheory_kernel.")):
            continue
        for base, names, line, _ in raw_imports(mod, path, path.name == "__init__.py"):
            for name in [base, *(f"{base}.{n}" for n in names)]:
                top = name.split(".")[0]
                if top in ("fairtheory", "verify"):
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert bad == []


def test_worstcase_bottom_layers(project: tuple[dict[str, Path], list[Edge]]) -> None:
    """The Gram algebra, the result types and the declared units import nothing of :mod:`fairtheory.worstcase`, the
    solver back-ends only the Gram algebra, the catalogue of classes the Gram algebra and the units (the builder, the
    proof search and every method's worst case sit above them); the proof search reaches the solvers (and the Gram
    algebra below them), not the builder, and no longer imports the certificate module."""
    _, edges = project
    ours = {(e.source, e.target) for e in edges if not e.via_package}

    def worstcase_deps(mod: str) -> set[str]:
        return {t for s, t in ours if s == mod and t.startswith("fairtheory.worstcase")}

    assert worstcase_deps("fairtheory.worstcase.gram") == set()
    assert worstcase_deps("fairtheory.worstcase.results") == set()
    assert worstcase_deps("fairtheory.worstcase.units") == set()  # the declared dimensions (homogeneity)
    assert worstcase_deps("fairtheory.worstcase.solvers") == {"fairtheory.worstcase.gram"}
    assert worstcase_deps("fairtheory.worstcase.classes") <= {"fairtheory.worstcase.gram",
                                                              "fairtheory.worstcase.units"}
    # the solvers and the bottom layer below them (the Gram algebra: its one-BLAS-thread guard), not the builder
    assert "fairtheory.worstcase.solvers" in worstcase_deps("fairtheory.proofs.search")
    assert worstcase_deps("fairtheory.proofs.search") <= {"fairtheory.worstcase.solvers", "fairtheory.worstcase.gram"}
    assert ("fairtheory.proofs.search", "fairtheory.proofs.certificate") not in ours


def test_worstcase_imports_inside_functions_are_lazy_subpackages(project: tuple[dict[str, Path], list[Edge]]) -> None:
    """Inside :mod:`fairtheory.worstcase` an import placed in a function names a module of a lazily loaded
    subpackage (one whose ``__init__`` exports through ``lazy_exports``: the algorithms, the bounds) - never
    another module of the project, which belongs at the top of the file (the rule in the module docstring)."""
    mods, edges = project
    lazy_packages = {m for m, p in mods.items() if p.name == "__init__.py" and lazy_names(p)}
    assert {"fairtheory.algorithms", "fairtheory.bounds", "fairtheory.worstcase"} <= lazy_packages
    bad = sorted(f"{e.source}:{e.line} -> {e.target}" for e in edges
                 if e.in_function and not e.via_package and e.source.startswith("fairtheory.worstcase")
                 and (e.target.rpartition(".")[0] not in lazy_packages or e.target.startswith("fairtheory.worstcase")))
    assert bad == []


if __name__ == "__main__":  # pragma: no cover - a report for the developer
    mods, edges = import_graph(ROOT, PACKAGES)
    for c in cycles(mods, edges):
        print(describe(c, edges, mods))
    print(f"{len(mods)} modules, {len(edges)} edges, {sum(e.in_function for e in edges)} inside functions",
          file=sys.stderr)
