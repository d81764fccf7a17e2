"""Overlay geometry as plain arrays: arrows, witness points and label anchors of the analysed pairs.

Pure numpy (no bpy, no gpu), vectorised over results, so it is tested without a GPU; ``overlay`` turns the
arrays into batches (docs/architecture.md, "The overlay").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

STATUSES = ('penetrating', 'touching', 'separated', 'clearance')
PENETRATING, TOUCHING, SEPARATED, CLEARANCE = range(4)
# The highlighted result: its colour moves this far toward white and its arrow head grows by this factor.
HIGHLIGHT_WHITEN = 0.5
HIGHLIGHT_HEAD_SCALE = 1.6
#: Label anchors at most this far outside the region (pixels) count as on screen.
OFF_SCREEN_MARGIN_PX = 200


@dataclass(frozen=True)
class ResultArrays:
    """The analysed pairs as arrays (N results): what the overlay caches between redraws."""

    points_a: np.ndarray  # (N, 3) witness points on A, world space
    points_b: np.ndarray  # (N, 3) witness points on B, world space
    normals: np.ndarray  # (N, 3) unit normals from A toward B
    depths: np.ndarray  # (N,) penetration depths (>= 0)
    statuses: np.ndarray  # (N,) status codes: PENETRATING, TOUCHING, SEPARATED or CLEARANCE

    @classmethod
    def empty(cls) -> ResultArrays:
        return cls(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0), np.zeros(0, dtype=np.int8))

    def __len__(self) -> int:
        return len(self.statuses)

    def subset(self, rows: np.ndarray) -> ResultArrays:
        """The results at ``rows``."""
        return ResultArrays(self.points_a[rows], self.points_b[rows], self.normals[rows], self.depths[rows],
                            self.statuses[rows])


@dataclass(frozen=True)
class ArrowStyle:
    """On-screen sizes, in pixels at UI scale 1, and the colours per status."""

    colors: np.ndarray  # (4, 4) RGBA, rows indexed by status code
    highlight: int = -1  # index of the result drawn brighter and with a bigger head (-1: none)
    pixel_scale: float = 1.0  # Blender's UI scale: multiplies every size in pixels below
    head_scale: float = 1.0  # factor on head sizes (the user's "Arrow Scale")
    fixed_length_px: float | None = None  # every arrow this long on screen; None: true lengths
    touching_length_px: float = 40.0  # touching arrows (depth ~0) always have an on-screen length
    min_length_px: float = 40.0  # penetrating arrows are at least this long on screen (their shafts reach back)
    min_head_px: float = 14.0  # heads are at least this long on screen (times head_scale)
    head_fraction: float = 0.2  # heads are at least this fraction of the arrow's length
    head_width_ratio: float = 0.7  # head width over head length
    point_size_px: float = 7.0  # witness point diamonds, corner to corner (times head_scale)
    label_size_px: float = 14.0  # font size, to centre labels beside vertical arrows
    label_offset_px: float = 10.0  # gap between an arrow and its label


@dataclass(frozen=True)
class OverlayGeometry:
    """What to draw for one view: vertex arrays with one RGBA colour per vertex, label anchors per result."""

    line_coords: np.ndarray  # (2L, 3) segment end points, world space
    line_colors: np.ndarray  # (2L, 4)
    triangle_coords: np.ndarray  # (3T, 3) arrow heads, world space
    triangle_colors: np.ndarray  # (3T, 4)
    point_coords: np.ndarray  # (2D, 3) witness points of the detailed rows, world space
    marker_coords: np.ndarray  # (12D, 3) two triangles per witness point, a diamond around it
    marker_colors: np.ndarray  # (6P, 4)
    label_anchors: np.ndarray  # (N, 2) region pixels, bottom-left of each result's label text
    label_visible: np.ndarray  # (N,) False for labels whose anchor is behind the camera
    detailed: np.ndarray  # (D,) rows drawn with witness points (and labels, where visible), ascending
    rows: np.ndarray  # (N,) which results these arrays are about (all of them unless culled), ascending


def status_codes(statuses) -> np.ndarray:
    """Status names ('penetrating', ...) as codes indexing ``STATUSES`` (vectorised over the names)."""
    names = np.asarray(statuses, dtype=object)
    codes = np.full(len(names), -1, dtype=np.int8)
    for code, status in enumerate(STATUSES):
        codes[names == status] = code
    if (codes < 0).any():
        raise ValueError(f"unknown status {names[codes < 0][0]!r}; expected one of {', '.join(STATUSES)}")
    return codes


def project_to_pixels(points: np.ndarray, view_projection: np.ndarray, size: tuple[float, float]):
    """Region pixel coordinates (N, 2) of world points and their clip-space w (N,) (w <= 0: behind the eye)."""
    dtype = np.result_type(points.dtype, np.float32)
    matrix = np.asarray(view_projection, dtype=dtype)
    x, y, z = points.T

    def row(r: int) -> np.ndarray:  # one coordinate of the product, column by column (a 3-wide matmul costs more)
        return x * matrix[r, 0] + y * matrix[r, 1] + z * matrix[r, 2] + matrix[r, 3]

    w = row(3)
    safe_w = np.where(np.abs(w) < 1e-12, dtype.type(1e-12), w)
    pixels = np.empty((len(points), 2), dtype=dtype)
    for axis in (0, 1):
        pixels[:, axis] = (row(axis) / safe_w + 1.0) * dtype.type(0.5 * size[axis])
    return pixels, w


def pixel_segments(line_coords: np.ndarray, view_projection: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """(S, 2, 2) region pixel end points of the line segments ``line_coords`` (2S, 3) (world) whose both ends lie
    in front of the eye: what labels keep off (``label_layout.spread_labels``'s obstacles)."""
    pixels, w = project_to_pixels(np.asarray(line_coords).reshape(-1, 3), view_projection, size)
    in_front = (w.reshape(-1, 2) > 0).all(axis=1)
    return pixels.reshape(-1, 2, 2)[in_front]


def pixels_per_unit(w: np.ndarray, projection: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """On-screen pixels per world unit, for lengths across the view at points of clip-space ``w``.

    Holds for Blender's perspective and orthographic matrices (no x/y term in the projection's w row).
    """
    scale = 0.5 * size[0] * abs(float(np.asarray(projection)[0, 0]))
    return scale / np.maximum(np.abs(w), 1e-12)


def _unit_rows(vectors: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Rows normalised; rows too short to have a direction become ``fallback``."""
    lengths = np.sqrt(np.einsum('ij,ij->i', vectors, vectors))
    good = lengths > 1e-9
    out = vectors / np.where(good, lengths, 1.0)[:, None]
    out[~good] = fallback
    return out


def compute_overlay_geometry(
    results: ResultArrays,
    view_matrix: np.ndarray,
    projection_matrix: np.ndarray,
    size: tuple[float, float],
    style: ArrowStyle,
    max_detailed: int | None = None,
    cull: bool = False,
) -> OverlayGeometry:
    """Lines, arrow-head triangles, witness points and label anchors of ``results`` seen in this view.

    ``view_matrix`` is world to eye (4x4), ``projection_matrix`` eye to clip (4x4), ``size`` the
    region's (width, height) in pixels. Head sizes and fixed lengths depend on the view; the rest
    does not. Every result gets its arrow or line; witness-point markers go to the ``detailed`` results
    (``detailed_rows``: all on-screen ones, or the ``max_detailed`` nearest), which also get labels.
    With ``cull`` the arrays are about the results that may show in the view only (``rows``; see
    ``_on_screen``), the rest left out; every index in the output then counts in ``rows``.
    """
    dtype = np.result_type(results.points_a.dtype, np.float32)  # float32 results: float32 arithmetic (faster)
    view_matrix = np.asarray(view_matrix, dtype=dtype)
    projection_matrix = np.asarray(projection_matrix, dtype=dtype)
    view_projection = projection_matrix @ view_matrix
    rows = np.arange(len(results))
    start_px, start_w = project_to_pixels(results.points_b, view_projection, size)
    if cull:
        rows = np.flatnonzero(_on_screen((start_px, start_w), project_to_pixels(results.points_a, view_projection,
                                                                                size), size, style))
        if len(rows) < len(results):
            highlight = np.flatnonzero(rows == style.highlight)
            style = dataclasses.replace(style, highlight=int(highlight[0]) if len(highlight) else -1)
            results, start_px, start_w = results.subset(rows), start_px[rows], start_w[rows]
    camera_right, camera_up, camera_forward = view_matrix[0, :3], view_matrix[1, :3], -view_matrix[2, :3]
    colors = np.asarray(style.colors, dtype=np.float32)[results.statuses]
    highlighted = np.arange(len(results)) == style.highlight
    colors[highlighted, :3] += (1.0 - colors[highlighted, :3]) * HIGHLIGHT_WHITEN

    starts, ends = results.points_b, results.points_a.copy()
    arrows = np.flatnonzero((results.statuses != SEPARATED) & (results.statuses != CLEARANCE))
    directions = _unit_rows(results.normals[arrows], camera_right)  # the arrows' (lines need none)
    ppu = pixels_per_unit(start_w[arrows], projection_matrix, size) / style.pixel_scale  # sizes in px at scale 1
    statuses = results.statuses[arrows]
    lengths = np.where(statuses == PENETRATING, results.depths[arrows], style.touching_length_px / ppu)
    if style.fixed_length_px is not None:
        lengths = np.full(len(arrows), style.fixed_length_px) / ppu
    tips = ends[arrows] = starts[arrows] + directions * lengths[:, None]
    if style.fixed_length_px is None:  # too short to see: the shaft reaches back from the tip on point A
        short = (statuses == PENETRATING) & (lengths < style.min_length_px / ppu)
        lengths[short] = style.min_length_px / ppu[short]
        starts = starts.copy()
        starts[arrows[short]] = tips[short] - directions[short] * lengths[short, None]

    head_lengths = np.maximum(style.head_fraction * lengths, style.min_head_px / ppu) * style.head_scale
    head_lengths[arrows == style.highlight] *= HIGHLIGHT_HEAD_SCALE
    line_coords = np.empty((len(results), 2, 3), dtype=np.float32)
    line_coords[:, 0], line_coords[:, 1] = starts, ends  # lines end at A; arrows' shafts stop at their heads
    line_coords[arrows, 1] = tips - directions * np.minimum(head_lengths, lengths)[:, None]

    sides = _unit_rows(np.cross(directions, camera_forward), camera_right) * (
        0.5 * style.head_width_ratio * head_lengths)[:, None]
    head_bases = tips - directions * head_lengths[:, None]
    triangle_coords = np.empty((len(arrows), 3, 3), dtype=np.float32)
    triangle_coords[:, 0], triangle_coords[:, 1], triangle_coords[:, 2] = tips, head_bases + sides, head_bases - sides
    anchors, anchor_w = _label_anchors((start_px, start_w), project_to_pixels(ends, view_projection, size), style)
    detailed = detailed_rows(anchors, anchor_w, size, style.highlight, max_detailed)
    point_coords = np.stack([results.points_a[detailed], results.points_b[detailed]], axis=1).reshape(-1, 3)
    _, point_w = project_to_pixels(point_coords, view_projection, size)
    radii = 0.5 * style.point_size_px * style.head_scale * style.pixel_scale / pixels_per_unit(
        point_w, projection_matrix, size
    )
    marker_coords = _diamonds(point_coords, radii, camera_right, camera_up)
    return OverlayGeometry(
        line_coords=line_coords.reshape(-1, 3),
        line_colors=np.repeat(colors, 2, axis=0),
        triangle_coords=triangle_coords.reshape(-1, 3),
        triangle_colors=np.repeat(colors[arrows], 3, axis=0),
        point_coords=point_coords.astype(np.float32),
        marker_coords=marker_coords.astype(np.float32),
        marker_colors=np.repeat(colors[detailed], 12, axis=0),
        label_anchors=anchors,
        label_visible=anchor_w > 0,
        detailed=detailed,
        rows=rows,
    )


def detailed_rows(anchors: np.ndarray, depths: np.ndarray, size: tuple[float, float], highlight: int,
                  limit: int | None) -> np.ndarray:
    """Rows drawn with witness points and a label: all of them when ``limit`` is None, else those whose
    label anchor is in front of the eye (``depths`` = clip-space w > 0) and on screen (within
    ``OFF_SCREEN_MARGIN_PX``), at most ``limit``: the highlighted one first, then the nearest (the same
    ones from one redraw to the next, so their label texts are re-used)."""
    if limit is None:
        return np.arange(len(anchors))
    on_screen = (depths > 0) & np.all(
        (anchors >= -OFF_SCREEN_MARGIN_PX) & (anchors <= np.asarray(size) + OFF_SCREEN_MARGIN_PX), axis=1)
    candidates = np.flatnonzero(on_screen)
    priority = depths[candidates].astype(np.float64)
    priority[candidates == highlight] = -np.inf
    if len(candidates) <= limit:
        return candidates
    kth = np.partition(priority, limit - 1)[limit - 1]
    keep = priority < kth
    keep[np.flatnonzero(priority == kth)[: limit - int(keep.sum())]] = True  # ties: the earlier results
    return candidates[keep]


def _on_screen(projected_starts, projected_ends, size: tuple[float, float], style: ArrowStyle) -> np.ndarray:
    """True for results whose drawing may show in the view, from the ``project_to_pixels`` of the segments' starts
    (B) and ends (A): the pixel box of the segment between their witness points meets the region, grown by
    ``OFF_SCREEN_MARGIN_PX`` and by the longest on-screen arrow and head the style draws, with both points in front
    of the eye; or the segment crosses the eye's plane (its projection is no box: kept)."""
    (start_px, start_w), (end_px, end_w) = projected_starts, projected_ends
    reach = max(style.fixed_length_px or 0.0, style.touching_length_px, style.min_length_px) + (
        style.min_head_px * style.head_scale * HIGHLIGHT_HEAD_SCALE)
    margin = OFF_SCREEN_MARGIN_PX + reach * style.pixel_scale
    low, high = np.minimum(start_px, end_px), np.maximum(start_px, end_px)
    meets = np.all((high >= -margin) & (low <= np.asarray(size) + margin), axis=1)
    return (meets & (start_w > 0) & (end_w > 0)) | ((start_w > 0) != (end_w > 0))


def _diamonds(centres: np.ndarray, radii: np.ndarray, right: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Two triangles per centre forming a camera-facing diamond with corners ``radii`` away: (6P, 3)."""
    offsets_right, offsets_up = right * radii[:, None], up * radii[:, None]
    top, bottom = centres + offsets_up, centres - offsets_up
    left, right_corner = centres - offsets_right, centres + offsets_right
    return np.stack([top, left, right_corner, bottom, right_corner, left], axis=1).reshape(-1, 3)


def _label_anchors(projected_starts, projected_ends, style: ArrowStyle):
    """Pixel anchors beside the middle of each drawn segment, on its right (or upper) side, and their
    clip-space w; ``projected_starts`` and ``projected_ends`` are ``project_to_pixels`` of its ends.

    blf writes rightwards from the anchor, so putting the anchor on the side of the segment that faces
    +x (or +y for horizontal segments) keeps the text off the arrow.
    """
    (start_px, start_w), (end_px, end_w) = projected_starts, projected_ends
    along = end_px - start_px
    normals = _unit_rows(np.stack([along[:, 1], -along[:, 0]], axis=1), np.array([1.0, 0.0]))
    flip = (normals[:, 0] < -1e-6) | ((np.abs(normals[:, 0]) <= 1e-6) & (normals[:, 1] < 0))
    normals[flip] *= -1.0
    middles = 0.5 * (start_px + end_px)
    anchors = middles + normals * (style.label_offset_px * style.pixel_scale)
    anchors[:, 1] -= 0.35 * style.label_size_px * style.pixel_scale * np.abs(normals[:, 0])
    middle_w = 0.5 * (start_w + end_w)
    return anchors, middle_w


#: Contact regions are filled with their status colour at this opacity (the outline is drawn opaque).
REGION_FILL_ALPHA = 0.35


@dataclass(frozen=True)
class ContactGeometry:
    """Intersection curves and contact regions of the shown results, world space, one colour per vertex."""

    line_coords: np.ndarray  # (2L, 3) segment end points: curves and region outlines
    line_colors: np.ndarray  # (2L, 4)
    triangle_coords: np.ndarray  # (3T, 3) region fills
    triangle_colors: np.ndarray  # (3T, 4)


def polyline_segments(points: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(segments (S, 2, 3), polyline of each segment (S,))``: consecutive point pairs within each polyline."""
    owner = np.repeat(np.arange(len(sizes)), sizes)
    joined = owner[:-1] == owner[1:]
    return np.stack([points[:-1][joined], points[1:][joined]], axis=1), owner[:-1][joined]


def closed_outline_segments(points: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Like ``polyline_segments`` with each polygon closed (last corner back to the first)."""
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    following = np.arange(len(points)) + 1
    ends = starts + sizes
    following[ends[sizes > 0] - 1] = starts[sizes > 0]
    owner = np.repeat(np.arange(len(sizes)), sizes)
    keep = np.repeat(sizes >= 2, sizes)
    return np.stack([points[keep], points[following[keep]]], axis=1), owner[keep]


def fan_triangles(points: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(triangles (T, 3, 3), polygon of each (T,))``: convex polygons cut into fans from their first corner."""
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    counts = np.maximum(sizes - 2, 0)
    owner = np.repeat(np.arange(len(sizes)), counts)
    step = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    first = starts[owner]
    corners = np.stack([first, first + step + 1, first + step + 2], axis=1)
    return points[corners], owner


def contact_geometry(curves: tuple, regions: tuple, shown: np.ndarray, codes: np.ndarray,
                     colors: np.ndarray) -> ContactGeometry:
    """The curves and regions of the shown results in their status colours.

    ``curves`` and ``regions`` are ``(points (P, 3), sizes (C,), result index (C,))`` as stored;
    ``shown`` the result indices drawn (sorted), ``codes`` their status codes, ``colors`` (4, 4) RGBA.
    """
    lines, line_rows, triangles, triangle_rows = [], [], [], []
    for (points, sizes, results), outline in ((curves, polyline_segments), (regions, closed_outline_segments)):
        position = np.searchsorted(shown, results)
        kept = (position < len(shown)) & (shown[np.minimum(position, len(shown) - 1)] == results) if len(shown) \
            else np.zeros(len(results), dtype=bool)
        segments, owner = outline(points, sizes)
        keep = kept[owner]
        lines.append(segments[keep])
        line_rows.append(position[owner[keep]])
        if outline is closed_outline_segments:
            fans, fan_owner = fan_triangles(points, sizes)
            keep = kept[fan_owner]
            triangles.append(fans[keep])
            triangle_rows.append(position[fan_owner[keep]])
    line_rows, triangle_rows = np.concatenate(line_rows), np.concatenate(triangle_rows)
    fill = np.asarray(colors, dtype=np.float32)[codes[triangle_rows]].copy()
    fill[:, 3] *= REGION_FILL_ALPHA
    return ContactGeometry(
        line_coords=np.concatenate(lines).reshape(-1, 3).astype(np.float32),
        line_colors=np.repeat(np.asarray(colors, dtype=np.float32)[codes[line_rows]], 2, axis=0),
        triangle_coords=np.concatenate(triangles).reshape(-1, 3).astype(np.float32),
        triangle_colors=np.repeat(fill, 3, axis=0),
    )


#: Colour of the curves where an object's own faces cross (``self_intersection_lines``).
SELF_INTERSECTION_COLOR = (1.0, 0.25, 0.85, 1.0)


def self_intersection_lines(segments: np.ndarray, owners: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """(2K, 3) float32 line ends of the stored self-intersection ``segments`` (S, 2, 3) whose ``owners`` (S,) are
    among the ``shown`` item indices (those whose objects still exist)."""
    keep = np.isin(owners, shown)
    return np.ascontiguousarray(segments[keep].reshape(-1, 3), dtype=np.float32)


#: The overlap solid's fill opacity (its crease outline is drawn opaque) and the angle between two faces beyond
#: which their shared edge is outlined (flatter edges are the Boolean's cuts and a curved surface's facets).
OVERLAP_FILL_ALPHA = 0.45
OVERLAP_CREASE_DEGREES = 30.0
#: The overlap solid's faces are shaded by a fixed light from above, so the solid reads as one: faces turned away
#: from it keep this fraction of the colour.
OVERLAP_SHADE_FLOOR = 0.55
_OVERLAP_LIGHT = np.array([0.3, 0.4, 0.866])


def overlap_geometry(points: np.ndarray, triangles: np.ndarray, color) -> ContactGeometry:
    """The overlap solid (``points`` (V, 3) world space, outward ``triangles`` (T, 3) indices) filled translucent in
    ``color`` (RGBA), shaded by face, and outlined along its creases (edges between faces more than
    ``OVERLAP_CREASE_DEGREES`` apart, and edges with one face)."""
    points, triangles = np.asarray(points, dtype=np.float64), np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    corners = points[triangles]
    normals = _unit_rows(np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]),
                         np.array([0.0, 0.0, 1.0]))
    color = np.asarray(color, dtype=np.float32)
    light = np.clip(normals @ (_OVERLAP_LIGHT / np.linalg.norm(_OVERLAP_LIGHT)), 0.0, 1.0)
    fill = np.repeat(color[None, :], len(triangles), axis=0)
    fill[:, :3] *= (OVERLAP_SHADE_FLOOR + (1.0 - OVERLAP_SHADE_FLOOR) * light)[:, None].astype(np.float32)
    fill[:, 3] *= OVERLAP_FILL_ALPHA
    edges = crease_edges(triangles, normals, OVERLAP_CREASE_DEGREES)
    return ContactGeometry(
        line_coords=points[edges].reshape(-1, 3).astype(np.float32),
        line_colors=np.repeat(color[None, :], 2 * len(edges), axis=0),
        triangle_coords=corners.reshape(-1, 3).astype(np.float32),
        triangle_colors=np.repeat(fill, 3, axis=0),
    )


def crease_edges(triangles: np.ndarray, normals: np.ndarray, degrees: float) -> np.ndarray:
    """(E, 2) vertex indices of the edges of ``triangles`` (T, 3) whose faces (unit ``normals`` (T, 3)) meet at more
    than ``degrees``, or that only one face has; each edge once."""
    sides = np.sort(triangles[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    owners = np.repeat(np.arange(len(triangles)), 3)
    order = np.lexsort((sides[:, 1], sides[:, 0]))
    sides, owners = sides[order], owners[order]
    starts = np.flatnonzero(np.concatenate([[True], (sides[1:] != sides[:-1]).any(axis=1)])) if len(sides) \
        else np.zeros(0, dtype=np.int64)
    counts = np.diff(np.append(starts, len(sides)))
    first, last = owners[starts], owners[starts + counts - 1]  # a manifold edge's two faces
    cosine = np.einsum('ij,ij->i', normals[first], normals[last])
    crease = (counts != 2) | (cosine < np.cos(np.radians(degrees)))
    return sides[starts[crease]]
