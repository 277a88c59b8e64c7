"""Loading claim modules: the built-in families, user plugins and installed entry points.

A *claim module* is any Python module whose import registers claims with :func:`verify.claim`.
Three sources, all reported the same way (a module that fails to import is recorded with its
traceback; the runner prints it and fails the run):

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
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
import traceback
from importlib.metadata import entry_points
from pathlib import Path

__all__ = ["ENTRY_POINT_GROUP", "LOAD_ERRORS", "load_builtin", "load_plugin", "load_entry_points", "load_plugins"]

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
    looks_like_path = spec.endswith(".py") or "/" in spec or "\\" in spec
    if looks_like_path:
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
