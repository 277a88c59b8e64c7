"""The public API: the imports the documentation shows work, and every subpackage's ``__all__`` is real.

* every ``import fairtheory...`` / ``from fairtheory... import ...`` statement in a code block of
  ``README.md`` or ``docs/*.md`` runs;
* every name in the ``__all__`` of ``fairtheory`` and each of its subpackages exists;
* the lazily exported names match the ``TYPE_CHECKING`` imports that type checkers read, and importing
  the lazy subpackages loads no scipy, cvxpy or torch;
* there is one public ``min_norm_point``.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fairtheory

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(\s*)(```|~~~)")
PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)")
IS_OURS = re.compile(r"^fairtheory(\.|$)")
PYTHON_C = re.compile(r"""python[0-9.]*\s+-c\s+(?:"([^"]*)"|'([^']*)')""")


# ------------------------------------------------------------------ import statements in the docs
def code_blocks(text: str) -> list[tuple[int, list[str]]]:
    """``(first line number, lines)`` of each code block: fenced (``` or ~~~, fences excluded) and indented
    (lines indented by 4 spaces or more after a blank line, outside fences)."""
    blocks: list[tuple[int, list[str]]] = []
    inside, fence, start, lines = False, "", 0, []
    indented: list[str] = []
    start_indented, prev_blank = 0, True
    for no, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if inside:
            if line.strip().startswith(fence):
                blocks.append((start, lines))
                inside = False
            else:
                lines.append(line)
        elif line.startswith("    ") and line.strip() and (indented or prev_blank):
            if not indented:
                start_indented = no
            indented.append(line)
        elif indented and not line.strip():
            indented.append(line)
        else:
            if indented:
                blocks.append((start_indented, indented))
                indented = []
            if m:
                inside, fence, start, lines = True, m.group(2), no + 1, []
        prev_blank = not line.strip()
    if indented:
        blocks.append((start_indented, indented))
    return blocks


def _our_imports(tree: ast.AST) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and IS_OURS.match(node.module):
            out.append(node)
        elif isinstance(node, ast.Import) and any(IS_OURS.match(a.name) for a in node.names):
            out.append(node)
    return out


def import_statements(text: str) -> list[tuple[int, str]]:
    """``(line number, source)`` of every statement importing ``fairtheory`` in the code blocks of ``text``.

    A block that parses as Python (after removing doctest prompts and a common indent) gives its import
    nodes, nested ones included; otherwise (shell sessions, elided code) every line that starts an
    import is read on its own, with the lines a parenthesised import continues on."""
    found: list[tuple[int, str]] = []
    for start, lines in code_blocks(text):
        plain = [PROMPT.sub("", ln.lstrip()) if PROMPT.match(ln.lstrip()) else ln for ln in lines]
        src = textwrap.dedent("\n".join(plain))
        try:
            tree = ast.parse(src)
        except SyntaxError:
            tree = None
        if tree is not None:
            found += [(start + node.lineno - 1, ast.unparse(node)) for node in _our_imports(tree)]
            continue
        i = 0
        while i < len(plain):
            head = plain[i].strip()
            for code in (a or b for a, b in PYTHON_C.findall(head)):  # python -c "...; from fairtheory import x; ..."
                try:
                    found += [(start + i, ast.unparse(n)) for n in _our_imports(ast.parse(code))]
                except SyntaxError:
                    pass
            if re.match(r"(from|import)\s+fairtheory(\.|\s|$)", head):
                stmt, j = head, i
                while stmt.count("(") > stmt.count(")") and j + 1 < len(plain):
                    j += 1
                    stmt += " " + plain[j].strip()
                try:
                    nodes = _our_imports(ast.parse(stmt.split("#")[0]))
                except SyntaxError:
                    nodes = []
                found += [(start + i, ast.unparse(n)) for n in nodes]
                i = j
            i += 1
    return found


def test_the_parser_finds_imports_in_every_form() -> None:
    text = textwrap.dedent("""\
        prose: from fairtheory import not_code
        ```python
        import numpy as np
        from fairtheory.sets import CappedSimplex
        def f():
            from fairtheory.algorithms import fedavg
        ```
        ```
        $ python -m verify
        >>> from fairtheory import exact
        >>> import fairtheory.testing as ft
        from fairtheory.exact import (
            solve_rcfl,
            solve_afl,
        )
        from fairtheory_plugin import X
        python -c "import json; from fairtheory.proofs import check_proof; print(1)"
        ```
        Indented code after a blank line:

            from fairtheory.worstcase import worst_case
            worst_case(...)
        """)
    assert import_statements(text) == [
        (4, "from fairtheory.sets import CappedSimplex"),
        (6, "from fairtheory.algorithms import fedavg"),
        (10, "from fairtheory import exact"),
        (11, "import fairtheory.testing as ft"),
        (12, "from fairtheory.exact import solve_rcfl, solve_afl"),
        (17, "from fairtheory.proofs import check_proof"),
        (21, "from fairtheory.worstcase import worst_case"),
    ]


DOC_IMPORTS = [(f"{path.name}:{no}", src) for path in DOCS
               for no, src in import_statements(path.read_text(encoding="utf-8"))]


def test_the_docs_show_imports() -> None:
    """Not vacuous: the README and docs carry imports of several subpackages."""
    assert len(DOC_IMPORTS) >= 10
    assert any(where.startswith("README.md") for where, _ in DOC_IMPORTS)
    mods = {ast.parse(src).body[0].module for _, src in DOC_IMPORTS if src.startswith("from ")}  # type: ignore[attr-defined]
    assert {"fairtheory.algorithms", "fairtheory.worstcase", "fairtheory.testing"} <= mods


@pytest.mark.parametrize(("where", "src"), DOC_IMPORTS, ids=[f"{w} {s}" for w, s in DOC_IMPORTS])
def test_documented_import_runs(where: str, src: str) -> None:
    namespace: dict[str, object] = {}
    exec(compile(src, where, "exec"), namespace)  # noqa: S102 - the statement is an import read from our docs
    node = ast.parse(src).body[0]
    bound = [a.asname or (a.name if isinstance(node, ast.ImportFrom) else a.name.split(".")[0])
             for a in node.names]  # type: ignore[attr-defined]
    assert all(name in namespace for name in bound), (where, src)


# ------------------------------------------------------------------ __all__ of every subpackage
def _packages() -> list[str]:
    names = ["fairtheory"]
    names += [m.name for m in pkgutil.walk_packages(fairtheory.__path__, "fairtheory.") if m.ispkg]
    return names


PACKAGES = _packages()


def test_the_subpackages_are_found() -> None:
    assert {"fairtheory.algorithms", "fairtheory.bounds", "fairtheory.objectives", "fairtheory.exact",
            "fairtheory.problems", "fairtheory.worstcase", "fairtheory.proofs", "fairtheory.instances",
            "fairtheory.testing"} <= set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_in_all_exists(package: str) -> None:
    mod = importlib.import_module(package)
    names = getattr(mod, "__all__", None)
    assert isinstance(names, list) and names, f"{package} has no __all__"
    assert all(isinstance(n, str) for n in names)
    assert len(set(names)) == len(names), f"{package}.__all__ repeats {[n for n in names if names.count(n) > 1]}"
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, f"{package}.__all__ names missing attributes: {missing}"
    star: dict[str, object] = {}
    exec(f"from {package} import *", star)  # noqa: S102
    assert set(names) <= set(star)


LAZY = [p for p in PACKAGES if "lazy_exports(" in Path(importlib.import_module(p).__file__).read_text(encoding="utf-8")]


def test_the_lazy_packages_are_found() -> None:
    assert {"fairtheory.algorithms", "fairtheory.bounds", "fairtheory.objectives", "fairtheory.exact",
            "fairtheory.instances"} <= set(LAZY)


@pytest.mark.parametrize("package", LAZY)
def test_lazy_names_match_the_type_checking_imports(package: str) -> None:
    """A subpackage that exports lazily (:func:`fairtheory._lazy.lazy_exports`) repeats its exports as
    imports under ``TYPE_CHECKING``; both lists must name the same objects."""
    mod = importlib.import_module(package)
    tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
    guarded = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    assert guarded, f"{package} exports lazily without TYPE_CHECKING imports"
    declared: dict[str, object] = {}
    for block in guarded:
        for node in block.body:
            assert isinstance(node, (ast.Import, ast.ImportFrom)), ast.unparse(node)
            for alias in node.names:
                name = alias.asname or alias.name
                assert alias.asname == alias.name.split(".")[-1], f"re-export {alias.name} as itself"
                if isinstance(node, ast.ImportFrom):
                    declared[name] = getattr(importlib.import_module(node.module), alias.name)  # type: ignore[arg-type]
    assert set(declared) <= set(mod.__all__)
    eager = {n for n in mod.__all__ if n in vars(mod)} - set(declared)
    assert set(mod.__all__) == eager | set(declared), sorted(set(mod.__all__) - eager - set(declared))
    for name, obj in declared.items():
        assert getattr(mod, name) is obj, f"{package}.{name}"


def test_every_algorithm_module_is_exported() -> None:
    import fairtheory.algorithms as algorithms

    modules = {m.name for m in pkgutil.iter_modules(algorithms.__path__) if not m.name.startswith("_")}
    assert "fedavg" in modules
    assert modules <= set(algorithms.__all__), sorted(modules - set(algorithms.__all__))
    assert algorithms.fedavg is importlib.import_module("fairtheory.algorithms.fedavg")


def test_unknown_lazy_name_is_an_attribute_error() -> None:
    import fairtheory.exact as exact

    with pytest.raises(AttributeError, match="fairtheory.exact.*no_such_solver"):
        exact.no_such_solver  # noqa: B018
    assert not hasattr(exact, "no_such_solver")
    assert "solve_rcfl" in dir(exact)


def test_one_min_norm_point() -> None:
    """One public ``min_norm_point`` (``exact.min_norm``); ``exact.pareto`` keeps the twins and uses it."""
    from fairtheory import exact
    from fairtheory.exact import min_norm, pareto

    assert exact.min_norm_point is min_norm.min_norm_point
    owners = []
    for info in pkgutil.walk_packages(fairtheory.__path__, "fairtheory."):
        if info.name.rsplit(".", 1)[-1].startswith("_") or info.ispkg:
            continue
        mod = importlib.import_module(info.name)
        if "min_norm_point" in getattr(mod, "__all__", ()):
            owners.append(info.name)
    assert owners == ["fairtheory.exact.min_norm"]
    assert not hasattr(pareto, "min_norm_point")
    assert pareto.pareto_stationarity([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]) == pytest.approx(0.5 ** 0.5, rel=1e-15)


# ------------------------------------------------------------------ import cost
@pytest.mark.parametrize("package", LAZY)
def test_importing_the_package_stays_light(package: str) -> None:
    """Exporting the API must not load the heavy dependencies before they are used."""
    code = (f"import sys, {package}; "
            "print(sorted(m for m in ('torch', 'cvxpy', 'scipy', 'sympy', 'sklearn', 'hypothesis') if m in sys.modules))")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]", res.stdout + res.stderr
