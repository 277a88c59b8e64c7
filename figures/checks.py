"""What a reader can be misled by, checked on a matplotlib figure before it is saved.

:func:`figure_problems` returns one sentence per defect that code can see:

* every axes has an x and a y label (an axis shared with a labelled one, or hidden, needs none; a colour bar
  needs a label on its long axis);
* every legend entry (axes and figure legends) names at least one artist drawn with that label - visible, not
  fully transparent, with a line, marker, face or edge to see, and data inside the axes limits;
* no two legend entries draw the same data in one axes, and no entry's curve lies on another's (within
  :data:`POINTS` points at every vertex, both ways) unless the two can be told apart: the one underneath is a
  halo at least :data:`HALO` times as wide, or both have markers of different shapes;
* an unlabelled line or collection in an axes that a legend covers has the colour of some legend entry (a
  colour the legend does not list is unexplained); give decorations ``label="_nolegend_"`` to say they are
  meant to be unexplained, and explain them in the title or caption;
* no legend and no text box (``ax.text``, ``ax.annotate``, ``fig.text``) covers plotted data: each box's extent in
  display pixels, after drawing, is tested against every line (each segment, clipped to its axes - the exact
  limit of interpolating the line densely in display space - widened by half the line width, and each marker
  by its radius), scatter point (by its marker radius), error bar, bar and filled area (as a filled polygon).
  An annotation's arrow may touch data (it points at it); its text may not.

``python -m figures --check`` runs it on every figure; ``tests/test_figures.py`` asserts it finds nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

import numpy as np

#: two curves closer than this (in points, 1/72 inch: 1.4 pixels in the saved 130 dpi PNG) at every vertex
#: cannot be told apart
POINTS = 0.8
#: the wider of two coincident lines must be this many times as wide to show as a halo around the other
HALO = 2.5
_NO_LINE = ("None", "none", "", " ")
_NO_MARKER = ("None", "none", "", " ", None)


def figure_problems(fig: Any) -> list[str]:
    """Every defect :mod:`figures.checks` finds in ``fig`` (an empty list for a clean figure)."""
    fig.canvas.draw()
    problems: list[str] = []
    axes = [ax for ax in fig.axes if ax.get_visible()]
    for i, ax in enumerate(axes):
        problems += _label_problems(ax, _name(ax, i))
    legends = [(leg, axes) for leg in fig.legends]
    legends += [(ax.get_legend(), [ax]) for ax in axes if ax.get_legend() is not None]
    for leg, covered in legends:
        labels = [t.get_text() for t in leg.get_texts()]
        for label in labels:
            problems += _entry_problems(fig, label)
        problems += _overlap_problems(covered, axes, labels)
        problems += _unexplained_colours(leg, covered, axes, labels)
    problems += _cover_problems(fig, axes)
    return problems


# ---------------------------------------------------------------------------------------------- labels
def _name(ax: Any, i: int) -> str:
    title = ax.get_title() or ax.get_title("left") or ax.get_title("right")
    return f"axes {i}" + (f" ({title.splitlines()[0]!r})" if title else "")


def _label_problems(ax: Any, name: str) -> list[str]:
    if not ax.axison:
        return []
    if ax.get_label() == "<colorbar>" or hasattr(ax, "_colorbar"):
        long_axis = ax.yaxis if ax.get_position().height >= ax.get_position().width else ax.xaxis
        return [] if long_axis.get_label_text() else [f"{name}: the colour bar has no label"]
    out = []
    for which, axis, shared in (("x", ax.xaxis, ax.get_shared_x_axes()), ("y", ax.yaxis, ax.get_shared_y_axes())):
        if not axis.get_visible() or axis.get_label_text():
            continue
        siblings = [s for s in shared.get_siblings(ax) if s is not ax]
        if any((s.xaxis if which == "x" else s.yaxis).get_label_text() for s in siblings):
            continue
        out.append(f"{name}: the {which} axis has no label")
    return out


# --------------------------------------------------------------------------------------------- artists
def _artists(ax: Any) -> Iterator[Any]:
    """The data artists of ``ax`` and its containers (bars, error bars), each once."""
    seen: set[int] = set()
    for art in [*ax.lines, *ax.collections, *ax.patches, *ax.images, *ax.containers]:
        if id(art) not in seen:
            seen.add(id(art))
            yield art


def _parts(art: Any) -> list[Any]:
    """The drawn pieces of an artist (a container's children; the artist itself otherwise)."""
    from matplotlib.container import Container

    if isinstance(art, Container):
        return [p for p in art.get_children() if p is not None]
    return [art]


def _transparent(color: Any) -> bool:
    from matplotlib.colors import to_rgba_array

    try:
        rgba = to_rgba_array(color)
    except (ValueError, TypeError):
        return False
    return rgba.size == 0 or bool(np.all(rgba[:, 3] == 0))


def _shown(part: Any) -> bool:
    """Whether ``part`` draws anything one can see (visible, not transparent, a line, marker, face or edge)."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if not part.get_visible() or part.get_alpha() == 0:
        return False
    if isinstance(part, Line2D):
        line = part.get_linestyle() not in _NO_LINE and part.get_linewidth() > 0
        marker = part.get_marker() not in _NO_MARKER and part.get_markersize() > 0
        return (line or marker) and not _transparent(part.get_color())
    if isinstance(part, Collection):
        lw = np.atleast_1d(part.get_linewidths())
        edges = lw.size > 0 and float(np.max(lw)) > 0 and not _transparent(part.get_edgecolor())
        return edges or not _transparent(part.get_facecolor())
    if isinstance(part, Patch):
        edges = part.get_linewidth() > 0 and not _transparent(part.get_edgecolor())
        return (part.get_fill() and not _transparent(part.get_facecolor())) or edges
    return True


def _display_points(part: Any) -> np.ndarray:
    """The vertices ``part`` draws, in display pixels (finite ones only)."""
    from matplotlib.collections import Collection, PathCollection
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if isinstance(part, Line2D):
        pts = part.get_transform().transform(np.asarray(part.get_xydata(), dtype=float))
    elif isinstance(part, PathCollection):  # scatter: the paths are marker shapes, the offsets the data
        pts = part.get_offset_transform().transform(np.asarray(part.get_offsets(), dtype=float))
    elif isinstance(part, Collection):  # fill_between, error bars: the paths are the data
        verts = [p.vertices for p in part.get_paths() if len(p.vertices)]
        pts = part.get_transform().transform(np.concatenate(verts)) if verts else np.empty((0, 2))
    elif isinstance(part, Patch):
        pts = np.asarray(part.get_verts(), dtype=float)
    elif isinstance(part, AxesImage):
        x0, x1, y0, y1 = part.get_extent()
        pts = part.axes.transData.transform(np.array([[x0, y0], [x1, y1]], dtype=float))
    else:
        return np.empty((0, 2))
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    return pts[np.all(np.isfinite(pts), axis=1)]


def _inside(ax: Any, pts: np.ndarray) -> bool:
    box = ax.bbox
    tol = 1.0
    ok = ((pts[:, 0] >= box.x0 - tol) & (pts[:, 0] <= box.x1 + tol)
          & (pts[:, 1] >= box.y0 - tol) & (pts[:, 1] <= box.y1 + tol))
    return bool(np.any(ok))


def _labelled(fig: Any, label: str) -> list[tuple[Any, Any]]:
    return [(ax, art) for ax in fig.axes for art in _artists(ax) if art.get_label() == label]


def _entry_problems(fig: Any, label: str) -> list[str]:
    found = _labelled(fig, label)
    if not found:
        return [f"legend entry {label!r} has no artist in any axes (a proxy handle shows nothing of the data)"]
    for ax, art in found:
        for part in _parts(art):
            if _shown(part) and _inside(ax, _display_points(part)):
                return []
    return [f"legend entry {label!r}: nothing with this label is visible with data inside the axes limits"]


# -------------------------------------------------------------------------------------------- overlaps
def _line_of(art: Any) -> Any:
    from matplotlib.lines import Line2D

    for part in _parts(art):
        if isinstance(part, Line2D) and _shown(part):
            return part
    return None


def _distance_to_polyline(pts: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Distance of each point to the polyline through ``poly`` (or to its points when it has one vertex)."""
    if len(poly) == 1:
        return np.linalg.norm(pts - poly[0], axis=1)
    a, b = poly[:-1], poly[1:]
    ab = b - a
    den = np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12)
    t = np.clip(np.einsum("pij,ij->pi", pts[:, None, :] - a[None], ab) / den, 0.0, 1.0)
    proj = a[None] + t[..., None] * ab[None]
    return np.min(np.linalg.norm(pts[:, None, :] - proj, axis=2), axis=1)


def _coincide(p: np.ndarray, q: np.ndarray, tol: float) -> bool:
    if len(p) == 0 or len(q) == 0:
        return False
    return bool(np.max(_distance_to_polyline(p, q)) <= tol and np.max(_distance_to_polyline(q, p)) <= tol)


def _distinguishable(a: Any, b: Any, ax: Any) -> bool:
    """Two coincident lines stay readable when the lower one is a halo around the upper one, or both carry
    markers of different shapes and the lower one's are at least :data:`HALO` / 1.5 times as large (so that they
    show around the upper ones)."""
    order = {id(art): k for k, art in enumerate(ax.get_children())}
    lower, upper = sorted((a, b), key=lambda ln: (ln.get_zorder(), order.get(id(ln), 0)))
    upper_w = upper.get_linewidth() if upper.get_linestyle() not in _NO_LINE else 0.0
    if lower.get_linestyle() not in _NO_LINE and lower.get_linewidth() >= HALO * max(upper_w, 0.5):
        return True
    ml, mu = lower.get_marker(), upper.get_marker()
    return (ml not in _NO_MARKER and mu not in _NO_MARKER and ml != mu
            and lower.get_markersize() >= HALO / 1.5 * upper.get_markersize())


def _overlap_problems(covered: list[Any], axes: list[Any], labels: list[str]) -> list[str]:
    out = []
    for ax in covered:
        lines = {}
        for label in labels:
            arts = [art for art in _artists(ax) if art.get_label() == label]
            line = next((ln for ln in map(_line_of, arts) if ln is not None), None)
            if line is not None:
                lines[label] = line
        for (la, a), (lb, b) in combinations(lines.items(), 2):
            da, db = np.asarray(a.get_xydata(), float), np.asarray(b.get_xydata(), float)
            if da.shape == db.shape and np.allclose(da, db, rtol=1e-12, atol=0, equal_nan=True):
                out.append(f"legend entries {la!r} and {lb!r} draw identical data in {_name(ax, axes.index(ax))}: "
                           "one entry hides the other (merge them)")
            elif _coincide(_display_points(a), _display_points(b), POINTS * ax.figure.dpi / 72) \
                    and not _distinguishable(a, b, ax):
                out.append(f"legend entries {la!r} and {lb!r} lie on each other in {_name(ax, axes.index(ax))} "
                           f"(within {POINTS} pt everywhere): draw the lower one as a halo or give both markers")
    return out


# ------------------------------------------------------------------------------------ unexplained colours
def _colours(art: Any) -> set[tuple[float, float, float]]:
    from matplotlib.collections import Collection
    from matplotlib.colors import to_rgba_array
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    out: set[tuple[float, float, float]] = set()
    for part in _parts(art):
        if not _shown(part):
            continue
        if isinstance(part, Line2D):
            cols = [part.get_color()]
            if part.get_linestyle() in _NO_LINE:
                cols = [part.get_markerfacecolor(), part.get_markeredgecolor()]
        elif isinstance(part, Collection):
            cols = [part.get_facecolor(), part.get_edgecolor()]
        elif isinstance(part, Patch):
            cols = [part.get_facecolor(), part.get_edgecolor()]
        else:
            continue
        for c in cols:
            try:
                rgba = to_rgba_array(c)
            except (ValueError, TypeError):
                continue
            out |= {tuple(np.round(x[:3], 3)) for x in rgba if x[3] > 0}
    return out


def _unexplained_colours(leg: Any, covered: list[Any], axes: list[Any], labels: list[str]) -> list[str]:
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D

    listed: set[tuple[float, float, float]] = set()
    for ax in axes:
        for art in _artists(ax):
            if art.get_label() in labels:
                listed |= _colours(art)
    if not listed:
        return []
    out = []
    for ax in covered:
        for art in _artists(ax):
            label = str(art.get_label())
            if not label.startswith("_child") or not isinstance(art, (Line2D, Collection)):
                continue  # labelled, or marked "_nolegend_" (deliberately unexplained), or not data
            if _colours(art) - listed and _shown(art) and _inside(ax, _display_points(art)):
                out.append(f"{_name(ax, axes.index(ax))}: an unlabelled {type(art).__name__} is drawn in a colour "
                           "that no legend entry lists")
    return sorted(set(out))


# -------------------------------------------------------------------------------- boxes over the data
def _boxes(fig: Any, axes: list[Any]) -> list[tuple[str, Any]]:
    """``(description, display bbox)`` of every visible legend and non-empty text box of ``fig``."""
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    out = []
    for leg in fig.legends:
        if leg.get_visible():
            out.append(("the figure legend", leg.get_window_extent(renderer)))
    for i, ax in enumerate(axes):
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            out.append((f"the legend of axes {i}", leg.get_window_extent(renderer)))
    for text in [*fig.texts, *(t for ax in axes for t in ax.texts)]:
        if not text.get_visible() or not text.get_text().strip():
            continue
        box = Text.get_window_extent(text, renderer)  # an Annotation's own extent includes its arrow
        patch = text.get_bbox_patch()
        if patch is not None and patch.get_visible():
            box = Bbox.union([box, patch.get_window_extent(renderer)])
        kind = "annotation" if hasattr(text, "xy") else "text"
        out.append((f"the {kind} {text.get_text().splitlines()[0][:40]!r}", box))
    return out


def _segments_hit(p: np.ndarray, q: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """For each segment ``p[k] -> q[k]`` the first point inside the box ``[x0, x1] x [y0, y1]`` (Liang-Barsky
    clipping: exact, no sampling), ``nan`` where the segment misses the box."""
    d = q - p
    t0, t1 = np.zeros(len(p)), np.ones(len(p))
    with np.errstate(divide="ignore", invalid="ignore"):
        for k, (lo, hi) in enumerate(((x0, x1), (y0, y1))):
            flat = d[:, k] == 0
            outside = flat & ((p[:, k] < lo) | (p[:, k] > hi))
            ta, tb = (lo - p[:, k]) / d[:, k], (hi - p[:, k]) / d[:, k]
            t0 = np.where(flat, t0, np.maximum(t0, np.minimum(ta, tb)))
            t1 = np.where(flat, t1, np.minimum(t1, np.maximum(ta, tb)))
            t1 = np.where(outside, -1.0, t1)
    hit = t0 <= t1
    out = np.full_like(p, np.nan)
    out[hit] = p[hit] + t0[hit, None] * d[hit]
    return out


def _polylines(part: Any) -> list[np.ndarray]:
    """The polylines ``part`` strokes, in display pixels (a line's vertices; a line collection's paths)."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    if isinstance(part, Line2D):
        return [part.get_transform().transform(np.asarray(part.get_xydata(), dtype=float))]
    if isinstance(part, LineCollection):
        tr = part.get_transform()
        return [tr.transform(np.asarray(p.vertices, dtype=float)) for p in part.get_paths() if len(p.vertices)]
    return []


def _first_hit(polys: list[np.ndarray], box: Any, pad: float) -> np.ndarray | None:
    """The first point of ``polys`` (display pixels) within ``pad`` pixels of ``box``, or ``None``."""
    x0, y0, x1, y1 = box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad
    for pts in polys:
        if len(pts) == 1:
            pts = np.vstack([pts, pts])
        p, q = pts[:-1], pts[1:]
        ok = np.all(np.isfinite(p), axis=1) & np.all(np.isfinite(q), axis=1)
        hits = _segments_hit(p[ok], q[ok], x0, y0, x1, y1)
        found = hits[np.all(np.isfinite(hits), axis=1)]
        if len(found):
            return found[0]
    return None


def _covered_at(part: Any, box: Any) -> np.ndarray | None:
    """A display point where ``part`` (a drawn piece of data) meets ``box``, or ``None``."""
    from matplotlib.collections import Collection, LineCollection, PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    px = part.figure.dpi / 72.0
    if isinstance(part, Line2D):
        hit = None
        if part.get_linestyle() not in _NO_LINE and part.get_linewidth() > 0:
            hit = _first_hit(_polylines(part), box, 0.5 * part.get_linewidth() * px)
        if hit is None and part.get_marker() not in _NO_MARKER and part.get_markersize() > 0:
            pts = _polylines(part)[0]
            pad = 0.5 * part.get_markersize() * px
            inside = ((pts[:, 0] >= box.x0 - pad) & (pts[:, 0] <= box.x1 + pad)
                      & (pts[:, 1] >= box.y0 - pad) & (pts[:, 1] <= box.y1 + pad))
            hit = pts[inside][0] if inside.any() else None
        return hit
    if isinstance(part, LineCollection):
        lw = np.atleast_1d(part.get_linewidths())
        return _first_hit(_polylines(part), box, 0.5 * float(np.max(lw, initial=0.0)) * px)
    if isinstance(part, PathCollection):  # scatter: the offsets are the data, the paths the marker shapes
        pts = part.get_offset_transform().transform(np.asarray(part.get_offsets(), dtype=float))
        sizes = np.broadcast_to(np.atleast_1d(part.get_sizes()), (len(pts),)) if len(pts) else np.empty(0)
        pad = 0.5 * np.sqrt(sizes) * px
        inside = ((pts[:, 0] >= box.x0 - pad) & (pts[:, 0] <= box.x1 + pad)
                  & (pts[:, 1] >= box.y0 - pad) & (pts[:, 1] <= box.y1 + pad))
        return pts[inside][0] if inside.any() else None
    if isinstance(part, (Collection, Patch)):  # fills, bars: filled polygons (their outline when not filled)
        if isinstance(part, Patch):
            paths, tr = [part.get_path()], part.get_transform()
            filled = part.get_fill() and not _transparent(part.get_facecolor())
        else:
            paths, tr = part.get_paths(), part.get_transform()
            filled = not _transparent(part.get_facecolor())
        for path in paths:
            disp = path.transformed(tr)
            if disp.intersects_bbox(box, filled=filled):
                v = disp.vertices
                return v[np.all(np.isfinite(v), axis=1)].mean(axis=0) if len(v) else np.array([box.x0, box.y0])
    return None


def _cover_problems(fig: Any, axes: list[Any]) -> list[str]:
    """One sentence per (box, axes) pair where a legend or text box covers data drawn in that axes."""
    from matplotlib.image import AxesImage
    from matplotlib.transforms import Bbox

    out = []
    for what, box in _boxes(fig, axes):
        for i, ax in enumerate(axes):
            if ax.get_label() == "<colorbar>" or hasattr(ax, "_colorbar"):
                continue
            region = Bbox.intersection(box, ax.bbox)  # clipped artists draw nothing outside the axes
            if region is None or region.width <= 0 or region.height <= 0:
                continue
            for art in _artists(ax):
                for part in _parts(art):
                    if isinstance(part, AxesImage) or not _shown(part):
                        continue
                    at = _covered_at(part, region if part.get_clip_on() else box)
                    if at is None:
                        continue
                    x, y = ax.transData.inverted().transform(at)
                    label = str(art.get_label())
                    name = repr(label) if not label.startswith("_") else f"an unlabelled {type(part).__name__}"
                    whose = "its own data" if what == f"the legend of axes {i}" else "data"
                    out.append(f"{what} covers {whose} in {_name(ax, i)}: {name} near ({x:.3g}, {y:.3g}) "
                               "(move it out of the data or outside the axes)")
                    break
                else:
                    continue
                break
    return out
