"""Loading claim modules: the built-in families, user plugins and installed entry points.

A *claim module* is any Python module whose import registers claims with :func:`verify.claim`.
Three sources (a built-in module or entry point that fails to import is recorded with its traceback in
:data:`LOAD_ERRORS`; the runner prints it and fails the run; a ``--plugin`` that fails is a bad argument):

* the built-in families, every submodule of :mod:`verify.claims`;
* ``--plugin MODULE_OR_PATH`` (repeatable): a dotted module name (importable from ``sys.path``) or a
  path to a ``.py`` file.  A loose file's folder is put on ``sys.path`` first, so it may import its
  neighbours; a file inside a package (folders with ``__init__.py``) is imported under its dotted name
  with the folder above the top package on ``sys.path`` (pytest's "prepend" rule), so
  ``--plugin examples/fairtheory-propfair/fairtheory_propfair/claims.py`` imports
  ``fairtheory_propfair.claims``;
* installed packages that declare an entry point in the group ``fairtheory.claims``, e.g. in their
  ``pyproject.toml``::

      [project.entry-points."fairtheory.claims"]
      mine = "my_package.claims"

The runner treats a ``--plugin`` that cannot be used as a bad argument (exit 2, one line, before any
claim runs): :func:`plugin_problem` checks a spec before anything heavy is imported (a missing file or
module, a syntax error), :func:`plugin_failure` describes an import that raised in one line, and
:func:`claims_of` finds the claims a loaded plugin registered (none is an error too).
:func:`builtin_claim_ids` reads the built-in claim ids from the sources of :mod:`verify.claims` without
importing them (their imports - scipy, sympy, cvxpy, hypothesis - take seconds), so that an ``--only``
pattern matching nothing is refused at once.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import pkgutil
import re
import sys
import traceback
from importlib.metadata import entry_points
from pathlib import Path

__all__ = ["ENTRY_POINT_GROUP", "LOAD_ERRORS", "load_builtin", "load_plugin", "load_entry_points", "load_plugins",
           "builtin_claim_ids", "plugin_problem", "plugin_failure", "claims_of", "has_entry_points"]

ENTRY_POINT_GROUP = "fairtheory.claims"

#: modules whose import failed (label -> traceback), accumulated over every load call
LOAD_ERRORS: dict[str, str] = {}


def load_builtin() -> dict[str, str]:
    """Import every built-in claim family (:mod:`verify.claims`); returns the import failures so far."""
    from verify.claims import load_all

    errs = load_all()
    LOAD_ERRORS.update(errs)
    return dict(LOAD_ERRORS)


def _module_name_for(path: Path) -> str:
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
    stem = re.sub(r"\W", "_", path.stem)
    return f"fairtheory_plugin_{stem}_{digest}"


def _package_module(path: Path) -> tuple[Path, str] | None:
    """For a file inside a package (folders with ``__init__.py``), the folder above the top package
    and the file's dotted module name (pytest's "prepend" rule); ``None`` for a loose file."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if len(parts) == 1:
        return None
    if parts[-1] == "__init__":
        parts.pop()
    return folder, ".".join(parts)


def load_plugin(spec: str) -> str:
    """Import one plugin given as a dotted module name or a ``.py`` path; returns the module name.

    Raises ``FileNotFoundError`` for a path that does not exist and whatever the import raises."""
    if _looks_like_path(spec):
        path = Path(spec).expanduser().resolve()
        if not path.is_file():
            raise FileNotFoundError(f"plugin file {spec!r} does not exist")
        package = _package_module(path)
        if package is not None:  # a module inside a package: import it under its dotted name
            root, dotted = package
            if str(root) not in sys.path:
                sys.path.insert(0, str(root))
            importlib.import_module(dotted)
            return dotted
        name = _module_name_for(path)
        if name in sys.modules:
            return name
        folder = str(path.parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        mod_spec = importlib.util.spec_from_file_location(name, path)
        if mod_spec is None or mod_spec.loader is None:  # pragma: no cover - not a Python file
            raise ImportError(f"cannot import {spec!r} as a Python module")
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = module
        try:
            mod_spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return name
    importlib.import_module(spec)
    return spec


def load_plugins(specs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Load each plugin; failures are recorded in :data:`LOAD_ERRORS` under ``plugin <spec>``."""
    for spec in specs:
        try:
            load_plugin(spec)
        except Exception:
            LOAD_ERRORS[f"plugin {spec}"] = traceback.format_exc(limit=6)
    return dict(LOAD_ERRORS)


def load_entry_points() -> dict[str, str]:
    """Load every installed ``fairtheory.claims`` entry point; failures recorded in :data:`LOAD_ERRORS`."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            ep.load()
        except Exception:
            LOAD_ERRORS[f"entry point {ep.name} = {ep.value}"] = traceback.format_exc(limit=6)
    return dict(LOAD_ERRORS)


def has_entry_points() -> bool:
    """Whether any installed package declares a ``fairtheory.claims`` entry point (nothing is imported)."""
    return any(True for _ in entry_points(group=ENTRY_POINT_GROUP))


def _declared_ids(tree: ast.Module) -> set[str] | None:
    """A module-level ``CLAIM_IDS = ("...", ...)`` of string literals (a module that registers its claims in a loop
    declares them so; it asserts at import that it registered exactly these), else ``None``."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "CLAIM_IDS" and isinstance(node.value, (ast.Tuple, ast.List))):
            vals = node.value.elts
            if all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in vals):
                return {v.value for v in vals}  # type: ignore[union-attr]
    return None


def _claim_ids_in(source: str) -> set[str] | None:
    """The literal ids of the ``claim("...")`` calls in ``source`` and of a module-level literal ``CLAIM_IDS`` tuple;
    ``None`` when an id is computed and no such tuple declares them."""
    tree = ast.parse(source)
    ids: set[str] = set()
    computed = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
            if name != "claim":
                continue
            arg = node.args[0] if node.args else None
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                computed = True
                continue
            ids.add(arg.value)
    # a literal CLAIM_IDS always counts: a module may register its claims through a helper of another module
    # (verify/claims/pepit_operators.py registers through pepit_parity.register_parity, with no claim(...) call)
    declared = _declared_ids(tree)
    if computed and declared is None:
        return None
    return ids | (declared or set())


@functools.cache
def builtin_claim_ids() -> frozenset[str] | None:
    """Every claim id the built-in modules of :mod:`verify.claims` register, subpackages included (the
    modules :func:`verify.claims.load_all` imports), read from their sources (``@claim("id", ...)`` with a
    literal id) without importing them; ``None`` when that cannot be told statically (a module computes an
    id, or a source is unreadable): the caller then imports them."""
    import verify.claims as pkg

    return _ids_under(Path(pkg.__path__[0]))


def _ids_under(folder: Path) -> frozenset[str] | None:
    ids: set[str] = set()
    for mod in pkgutil.iter_modules([str(folder)]):
        path = folder / mod.name / "__init__.py" if mod.ispkg else folder / f"{mod.name}.py"
        try:
            found = _claim_ids_in(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            return None
        inner = _ids_under(folder / mod.name) if mod.ispkg else frozenset()
        if found is None or inner is None:
            return None
        ids |= found | inner
    return frozenset(ids)


def _looks_like_path(spec: str) -> bool:
    return spec.endswith(".py") or "/" in spec or "\\" in spec


def plugin_problem(spec: str) -> str | None:
    """Why ``--plugin spec`` cannot be loaded, found without running it (one line), or ``None``.

    A path must name an existing file that compiles; a dotted name must be an importable module (its
    parent packages are imported to find it) whose source, when it has one, compiles."""
    if not spec.strip():
        return "--plugin needs a module name or a .py path, got an empty string"
    if _looks_like_path(spec):
        path = Path(spec).expanduser()
        if not path.exists():
            return f"plugin file {spec!r} does not exist"
        if not path.is_file():
            return f"plugin {spec!r} is not a file"
        origin: str | None = str(path)
    else:
        try:
            found = importlib.util.find_spec(spec)
        except (ImportError, ValueError) as exc:  # a parent package is missing or fails
            return f"plugin module {spec!r} cannot be found: {type(exc).__name__}: {_one_line(exc)}"
        except Exception as exc:  # noqa: BLE001 - a parent package raised while importing
            return f"plugin {spec!r} failed to import: {type(exc).__name__}: {_one_line(exc)}"
        if found is None:
            return f"plugin module {spec!r} cannot be found (not a file path and not importable from sys.path)"
        origin = found.origin if found.has_location else None
    if origin and origin.endswith(".py"):
        try:
            compile(Path(origin).read_bytes(), origin, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            return plugin_failure(spec, exc)
        except OSError as exc:
            return f"plugin {spec!r} cannot be read: {exc.strerror or exc}"
    return None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def plugin_failure(spec: str, exc: BaseException) -> str:
    """One line for a plugin whose import raised ``exc``: the plugin, the exception and, for a syntax
    error, where."""
    if isinstance(exc, SyntaxError):
        where = f" ({Path(exc.filename).name}, line {exc.lineno})" if exc.filename else ""
        return f"plugin {spec!r} failed to import: SyntaxError: {exc.msg}{where}"
    return f"plugin {spec!r} failed to import: {type(exc).__name__}: {_one_line(exc)}"


def claims_of(module: str, before: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The claim ids a loaded plugin ``module`` registered: those new since ``before`` (the registry's ids
    before it was loaded) and those whose check is defined in ``module`` or one of its submodules."""
    from verify.core import REGISTRY

    return [cid for cid, spec in REGISTRY.items()
            if cid not in before or spec.check.__module__ == module or spec.check.__module__.startswith(module + ".")]
