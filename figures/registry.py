"""Figure registry: ``@figure("name")`` registers ``make(out_dir, formats, quick) -> list[Path]``."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FigureFn = Callable[[Path, tuple[str, ...], bool], list[Path]]


@dataclass(frozen=True)
class FigureSpec:
    name: str
    description: str
    make: FigureFn

    @property
    def title(self) -> str:
        """The heading of the figure in docs/figures.md (the module's ``TITLE``; empty when it has none)."""
        return str(getattr(sys.modules[self.make.__module__], "TITLE", ""))

    @property
    def doc(self) -> str:
        """What docs/figures.md says one reads off the figure (the module's ``DOC``; every statement in it is
        asserted on the plotted data by tests/test_figure_statements.py)."""
        return str(getattr(sys.modules[self.make.__module__], "DOC", "")).strip()


FIGURES: dict[str, FigureSpec] = {}

#: resolution of the saved PNGs (the figure tests lower it to render faster)
DPI = 130

#: called as ``hook(fig, name)`` by :func:`save` before a figure is written (``python -m figures --check`` and
#: the figure tests inspect every figure with :func:`figures.checks.figure_problems` this way)
SAVE_HOOKS: list[Callable[[Any, str], None]] = []


def figure(name: str, description: str) -> Callable[[FigureFn], FigureFn]:
    """Register a figure maker under ``name`` (must be unique)."""

    def deco(fn: FigureFn) -> FigureFn:
        if name in FIGURES:
            raise KeyError(f"figure {name!r} registered twice")
        FIGURES[name] = FigureSpec(name, description, fn)
        return fn

    return deco


def figure_legend(fig: Any, axes: Any, **kw: Any) -> Any:
    """One legend for the whole figure with every labelled artist of ``axes`` (each label once, in drawing order
    panel by panel), so that an entry drawn only in a later panel is listed too."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    return fig.legend(list(seen.values()), list(seen), **kw)


def tex_sci(x: float, digits: int = 2) -> str:
    """``x`` in mathtext scientific notation (``2.04 \\times 10^{-4}``), without the dollar signs."""
    import math

    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    exp = math.floor(math.log10(abs(x)))
    mant = x / 10**exp
    if round(mant, digits) >= 10:
        mant, exp = mant / 10, exp + 1
    return f"{mant:.{digits}f} \\times 10^{{{exp}}}" if exp not in (0, 1, -1) else f"{x:.{digits + 1}g}"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save(fig: object, out_dir: Path, name: str, formats: tuple[str, ...]) -> list[Path]:
    """Save a matplotlib figure as ``out_dir/name.<fmt>`` for each format, atomically; close it.

    Files get the usual mode (``0666`` less the umask), not the ``0600`` of a temporary file; a
    failed save leaves no temporary file behind."""
    import tempfile

    import matplotlib.pyplot as plt

    try:
        for hook in SAVE_HOOKS:
            hook(fig, name)
        out_dir.mkdir(parents=True, exist_ok=True)
        mode = 0o666 & ~_umask()
        paths = []
        for ext in formats:
            target = out_dir / f"{name}.{ext}"
            fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{name}.", suffix=f".{ext}")
            os.close(fd)
            try:
                fig.savefig(tmp, format=ext, dpi=DPI, bbox_inches="tight")  # type: ignore[attr-defined]
                os.chmod(tmp, mode)
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            paths.append(target)
    finally:
        plt.close(fig)  # type: ignore[arg-type]
    return paths
