"""Viewport overlay: witness points and arrows (POST_VIEW, ``gpu``) and value labels (POST_PIXEL, ``blf``).

The draw callbacks only read ``scene.collision_inspector`` and cache what they derive from it, so a redraw
loops over no result in Python (docs/architecture.md, "The overlay"). ``draw_scene_overlay`` draws for an
explicit view (tests, ``snapshot``).
"""

from __future__ import annotations

from dataclasses import dataclass

import bpy
import gpu
import numpy as np
from bpy.app.handlers import persistent
from gpu_extras.batch import batch_for_shader
from mathutils import Matrix

from ..analysis.app_handlers import DATA_REPLACED, add_handler, remove_handler
from ..analysis.ordering import enum_column, number_column, visible_statuses
from ..analysis.review import CLASHING
from ..analysis.store import stored_polylines
from . import draw_geometry, overlap_solid, see_through
from .label_atlas import LabelAtlas, pixel_projection
from .label_layout import spread_labels, within_right_edge
from .units import format_length, format_volume

LINE_WIDTH_PX = 2.5
_MAX_CACHED_VIEWS = 8
#: Witness points and labels go to at most this many results per view: the active one, then those nearest
#: the eye, on screen. More would cover the view in unreadable text and markers; every result keeps its arrow.
MAX_DETAILED = 300

_draw_handles: list = []
_cache: dict = {"generation": 0, "columns": None, "scene": None, "atlas": None, "views": {}, "texts": {},
          "overlap": None}
#: Label texts kept for re-use: (unit settings, status code, value) -> text; dropped when it grows past this.
_MAX_CACHED_TEXTS = 100_000


@dataclass(frozen=True)
class SceneDrawing:
    """What the overlay draws for one scene, independent of the view."""

    results: draw_geometry.ResultArrays
    values: np.ndarray  # (N,) the length each label shows (depth, gap; 0 when touching)
    volumes: np.ndarray  # (N,) the overlap volume a penetrating result's label adds (0: none shown)
    style: draw_geometry.ArrowStyle
    show_arrows: bool
    show_labels: bool
    contact: draw_geometry.ContactGeometry | None  # intersection curves and contact regions, if shown


@dataclass(frozen=True)
class _ViewDrawing:
    """GPU batches of one scene in one view."""

    lines: object  # batch of arrow shafts and separation lines, or None
    triangles: object  # batch of arrow heads and witness point markers, or None
    labels: list  # [(atlas page texture, batch of its quads)]
    pixel_scale: float  # Blender's UI scale
    leaders: object = None  # batch of the lines from moved labels to their arrows (pixels), or None


# ---------------------------------------------------------------------------------------------------
# Handlers


def add_handlers() -> None:
    """Add the viewport draw callbacks and the file/undo handlers, once (calling again changes nothing)."""
    if not _draw_handles:
        space = bpy.types.SpaceView3D
        _draw_handles.append(space.draw_handler_add(_draw_post_view, (), 'WINDOW', 'POST_VIEW'))
        _draw_handles.append(space.draw_handler_add(_draw_post_pixel, (), 'WINDOW', 'POST_PIXEL'))
    add_handler(_on_data_replaced, *DATA_REPLACED)
    refresh()


def remove_handlers() -> None:
    """Remove everything ``add_handlers`` added and drop the caches (safe to call twice)."""
    for handle in _draw_handles:
        bpy.types.SpaceView3D.draw_handler_remove(handle, 'WINDOW')
    _draw_handles.clear()
    remove_handler(_on_data_replaced, *DATA_REPLACED)
    refresh()
    release_gpu_resources()
    overlap_solid.clear()


def release_gpu_resources() -> None:
    """Drop the cached batches and label textures (they are made again when needed). For callers that
    draw once into an offscreen buffer and then let the GPU context go, such as ``snapshot``: GPU objects
    freed after the context has gone crash Blender when Python exits."""
    _cache["atlas"] = None
    _cache["views"].clear()
    _cache["overlap"] = None


def handlers_installed() -> bool:
    """True when the viewport callbacks are active."""
    return bool(_draw_handles)


def refresh() -> None:
    """Results changed (or data was replaced): drop the cached drawing and redraw every 3D viewport.

    Safe without a window manager (background mode) and with no open windows. The label atlas stays:
    it holds texts by their wording and colour, whatever result they belong to.
    """
    _cache["generation"] += 1
    _cache["columns"] = None
    _cache["scene"] = None
    _cache["views"].clear()
    tag_redraw()


def tag_redraw() -> None:
    """Redraw every 3D viewport (display settings changed; the caches notice what changed themselves)."""
    for window_manager in getattr(bpy.data, "window_managers", ()):
        for window in window_manager.windows:
            for area in window.screen.areas:
                if area.type == 'VIEW_3D':
                    area.tag_redraw()


@persistent
def _on_data_replaced(*_args) -> None:
    """File loaded, undo or redo: the cached results may point to data that no longer exists."""
    refresh()


def _draw_post_view() -> None:
    region, scene = bpy.context.region, bpy.context.scene
    if see_through.needs_sync(scene):
        see_through.request_sync()  # a draw callback may not change the views' shading
    if region is not None:
        _draw_overlap(scene, region.width, region.height)
    view = _current_view_drawing()
    if view is not None:
        _draw_batches(view, bpy.context.region.width, bpy.context.region.height)


def _draw_post_pixel() -> None:
    view = _current_view_drawing()
    if view is not None:
        _draw_labels(view)


def _current_view_drawing() -> _ViewDrawing | None:
    context = bpy.context
    region, region_3d = context.region, context.region_data
    if region is None or region_3d is None:
        return None
    return view_drawing(
        context.scene, region_3d.view_matrix, region_3d.window_matrix, region.width, region.height,
        uncovered_width(context.area, region),
    )


def uncovered_width(area, region) -> int:
    """Pixels from the left of ``region`` (a 3D view's main region) to the area's sidebar, which Blender draws
    over the view's right edge when Region Overlap is on (the region's width without it, or with the sidebar
    hidden)."""
    for other in getattr(area, "regions", ()):
        if other.type == 'UI' and other.width > 1 and region.x < other.x < region.x + region.width:
            return other.x - region.x
    return region.width


# ---------------------------------------------------------------------------------------------------
# Drawing


def draw_scene_overlay(scene: bpy.types.Scene, view_matrix: Matrix, projection_matrix: Matrix, width: int,
                       height: int) -> None:
    """Draw the overlay of ``scene`` as seen through the given view into the bound framebuffer.

    ``view_matrix`` maps world to eye space, ``projection_matrix`` eye to clip space, ``width`` and
    ``height`` are the framebuffer's size in pixels. Arrows, points and labels as in the viewport.
    """
    view = view_drawing(scene, view_matrix, projection_matrix, width, height)
    with gpu.matrix.push_pop(), gpu.matrix.push_pop_projection():
        gpu.matrix.load_matrix(view_matrix)
        gpu.matrix.load_projection_matrix(projection_matrix)
        _draw_overlap(scene, width, height)
        if view is None:
            return
        _draw_batches(view, width, height)
        gpu.matrix.load_identity()
        gpu.matrix.load_projection_matrix(pixel_projection(width, height))
        _draw_labels(view)


def _draw_batches(view: _ViewDrawing, width: int, height: int) -> None:
    if view.lines is None and view.triangles is None:
        return
    depth_test = gpu.state.depth_test_get()
    gpu.state.blend_set('ALPHA')
    gpu.state.depth_test_set('NONE')  # arrows inside the objects they measure must stay visible
    if view.lines is not None:
        shader = gpu.shader.from_builtin('POLYLINE_FLAT_COLOR')
        shader.bind()
        shader.uniform_float("viewportSize", (width, height))
        shader.uniform_float("lineWidth", LINE_WIDTH_PX * view.pixel_scale)
        view.lines.draw(shader)
    if view.triangles is not None:
        view.triangles.draw(gpu.shader.from_builtin('FLAT_COLOR'))
    gpu.state.blend_set('NONE')
    gpu.state.depth_test_set(depth_test)


def _draw_overlap(scene, width: int, height: int) -> None:
    """The active result's overlap solid (``overlap_solid``), translucent and outlined, seen through the objects
    (the arrows and labels go on top of it)."""
    batches = overlap_batches(scene)
    if batches is None:
        return
    fill, outline = batches
    depth_test = gpu.state.depth_test_get()
    gpu.state.blend_set('ALPHA')
    gpu.state.depth_test_set('NONE')  # inside the objects: seen in solid shading too
    if fill is not None:
        gpu.state.face_culling_set('BACK')  # one layer of the solid: the same tint wherever it is seen
        fill.draw(gpu.shader.from_builtin('FLAT_COLOR'))
        gpu.state.face_culling_set('NONE')  # Blender's default for overlays (there is no getter)
    if outline is not None:
        shader = gpu.shader.from_builtin('POLYLINE_FLAT_COLOR')
        shader.bind()
        shader.uniform_float("viewportSize", (width, height))
        shader.uniform_float("lineWidth", LINE_WIDTH_PX * _ui_scale())
        outline.draw(shader)
    gpu.state.blend_set('NONE')
    gpu.state.depth_test_set(depth_test)


def overlap_batches(scene) -> tuple | None:
    """``(fill batch, outline batch)`` of the active result's overlap solid (either may be None), or None when none
    is drawn: Overlap off, no such result, or its solid not computed yet (``overlap_solid.current`` asks for it)."""
    settings = getattr(scene, "collision_inspector", None)
    mesh = overlap_solid.current(scene) if settings is not None else None
    if mesh is None:
        return None
    color = tuple(settings.color_penetrating)
    cached = _cache["overlap"]
    if cached is None or cached[0] is not mesh or cached[1] != color:
        geometry = draw_geometry.overlap_geometry(mesh.points, mesh.triangles, color)
        batches = (_joined_batch('FLAT_COLOR', 'TRIS', [(geometry.triangle_coords, geometry.triangle_colors)]),
                   _joined_batch('POLYLINE_FLAT_COLOR', 'LINES', [(geometry.line_coords, geometry.line_colors)]))
        cached = _cache["overlap"] = (mesh, color, batches)
    return cached[2]


def _draw_labels(view: _ViewDrawing) -> None:
    if view.leaders is not None:
        view.leaders.draw(gpu.shader.from_builtin('FLAT_COLOR'))
    if view.labels:
        LabelAtlas.draw(view.labels)


# ---------------------------------------------------------------------------------------------------
# Caches


def view_drawing(scene, view_matrix: Matrix, projection_matrix: Matrix, width: int, height: int,
                 uncovered: int | None = None):
    """The cached drawing of ``scene`` in this view, or None when there is nothing to draw; labels stay left of
    ``uncovered`` pixels (default: the width; see ``uncovered_width``)."""
    drawing = scene_drawing(scene)
    if drawing is None or not (drawing.show_arrows or drawing.show_labels or drawing.contact is not None):
        return None
    uncovered = width if uncovered is None else uncovered
    key = (view_matrix.copy().freeze(), projection_matrix.copy().freeze(), width, height, uncovered)
    views = _cache["views"]
    view = views.get(key)
    if view is None:
        if len(views) >= _MAX_CACHED_VIEWS:
            views.clear()
        view = _build_view(scene, drawing, np.array(view_matrix), np.array(projection_matrix), width, height,
                           uncovered)
        views[key] = view
    return view


def _build_view(scene, drawing: SceneDrawing, view_matrix, projection_matrix, width, height,
                uncovered) -> _ViewDrawing:
    geometry = draw_geometry.compute_overlay_geometry(
        drawing.results, view_matrix, projection_matrix, (width, height), drawing.style, max_detailed=MAX_DETAILED,
        cull=True,  # results off screen are left out of the batches: cheaper to build and to draw
    )
    line_parts, triangle_parts = [], []
    if drawing.show_arrows:
        line_parts.append((geometry.line_coords, geometry.line_colors))
        triangle_parts += [(geometry.triangle_coords, geometry.triangle_colors),
                           (geometry.marker_coords, geometry.marker_colors)]
    if drawing.contact is not None:
        line_parts.append((drawing.contact.line_coords, drawing.contact.line_colors))
        triangle_parts.append((drawing.contact.triangle_coords, drawing.contact.triangle_colors))
    lines = _joined_batch('POLYLINE_FLAT_COLOR', 'LINES', line_parts)
    triangles = _joined_batch('FLAT_COLOR', 'TRIS', triangle_parts)
    labels, leaders = [], None
    if drawing.show_labels:
        chosen = geometry.detailed[geometry.label_visible[geometry.detailed]]
        if len(chosen):
            curves = (draw_geometry.pixel_segments(drawing.contact.line_coords, projection_matrix @ view_matrix,
                                                   (width, height)) if drawing.contact is not None else None)
            labels, leaders = _label_batches(scene, drawing, geometry.label_anchors[chosen], geometry.rows[chosen],
                                             curves, uncovered)
    return _ViewDrawing(lines, triangles, labels, drawing.style.pixel_scale, leaders)


def _label_batches(scene, drawing: SceneDrawing, anchors: np.ndarray, chosen: np.ndarray, curves,
                   uncovered: float) -> tuple:
    """``(label batches, leader batch or None)`` of the chosen labels: texts formatted (once per distinct value)
    and added to the atlas, kept left of ``uncovered`` pixels, spread so that none overlaps another nor the
    ``curves`` (pixel segments of the drawn intersection curves and region outlines, or None) (``label_layout``),
    with leader lines from the moved ones to their arrows."""
    codes, values, volumes = drawing.results.statuses[chosen], drawing.values[chosen], drawing.volumes[chosen]
    cached, units = _cache["texts"], _units_key(scene.unit_settings)
    if len(cached) > _MAX_CACHED_TEXTS:
        cached.clear()
    texts = []
    for key in zip(codes.tolist(), values.tolist(), volumes.tolist()):
        text = cached.get((units, *key))
        if text is None:
            text = cached[(units, *key)] = label_text(*key, scene)
        texts.append(text)
    colors = np.asarray(drawing.style.colors)[codes]
    atlas = _cache["atlas"]
    size_px = drawing.style.label_size_px * drawing.style.pixel_scale
    if atlas is None or atlas.full or atlas.size_px != size_px:
        atlas = _cache["atlas"] = LabelAtlas(size_px)
        _cache["views"].clear()  # their batches sample the pages of the atlas just dropped
    slots = atlas.place(texts, colors)
    anchors, kept = within_right_edge(anchors, slots[:, 3:5], uncovered,
                                      drawing.style.label_offset_px * drawing.style.pixel_scale)
    anchors, chosen, slots, colors = anchors[kept], chosen[kept], slots[kept], colors[kept]
    active = chosen == drawing.style.highlight
    order = np.concatenate([np.flatnonzero(active), np.flatnonzero(~active)])  # the active label keeps its place
    layout = spread_labels(anchors[order], slots[order, 3:5], obstacles=curves)
    shown = order[layout.shown]
    leader_colors = np.repeat(colors[order][_moved(layout, anchors[order])], 2, axis=0)
    leaders = _joined_batch('FLAT_COLOR', 'LINES', [(layout.leaders.reshape(-1, 2), leader_colors)])
    return atlas.batches(layout.anchors, slots[shown]), leaders


def _moved(layout, anchors: np.ndarray) -> np.ndarray:
    """(N,) labels that ``layout`` moved from their own places (one leader each, in order)."""
    moved = np.zeros(len(anchors), dtype=bool)
    moved[layout.shown] = (layout.anchors != anchors[layout.shown]).any(axis=1)
    return moved


def _joined_batch(shader_name: str, primitive: str, parts: list):
    """One batch of all ``(coords, colors)`` parts, or None when they hold no vertex."""
    if not parts or not sum(len(coords) for coords, _colors in parts):
        return None
    coords = np.concatenate([coords for coords, _colors in parts]).astype(np.float32)
    colors = np.concatenate([colors for _coords, colors in parts]).astype(np.float32)
    return batch_for_shader(gpu.shader.from_builtin(shader_name), primitive, {"pos": coords, "color": colors})


def scene_drawing(scene) -> SceneDrawing | None:
    """Results and display settings of ``scene``, re-read only when refreshed or the cheap key changed."""
    settings = getattr(scene, "collision_inspector", None)
    if settings is None or not len(settings.results):
        return None
    units = _units_key(scene.unit_settings)
    key = (_cache["generation"], scene.as_pointer(), len(settings.results), *_settings_key(settings),
           *units, _ui_scale(), scene.frame_current)
    cached = _cache["scene"]
    if cached is None or cached[0] != key:
        cached = _cache["scene"] = (key, _scene_from_columns(settings, _columns(scene, settings),
                                                             scene.frame_current))
        _cache["views"].clear()
    return cached[1]


def _columns(scene, settings) -> dict:
    """Every stored result's numbers, status and review state as arrays (``foreach_get``), re-read only
    after ``refresh()`` or when the number of results changed."""
    key = (_cache["generation"], scene.as_pointer(), len(settings.results))
    cached = _cache["columns"]
    if cached is None or cached[0] != key:
        results = settings.results
        columns = {name: number_column(results, f"{name}_view", 3, np.float32)
                   for name in ("point_a", "point_b", "normal")}
        signed = number_column(results, "signed_distance_view", dtype=np.float32)
        pending = number_column(results, "volume_pending", dtype=bool)  # its volume not (yet) measured: left out
        columns.update(depth=np.maximum(-signed, 0.0), distance=np.maximum(signed, 0.0),
                       overlap_volume=np.where(pending, 0.0, number_column(results, "overlap_volume_view",
                                                                           dtype=np.float32)))
        statuses = enum_column(results, "status")
        columns["codes"] = draw_geometry.status_codes(statuses)
        columns["vanished"] = vanished_clashes(statuses, enum_column(results, "review_state"))
        columns["frame_bound"] = number_column(results, "frame_bound", dtype=bool)
        columns["measured_frame"] = number_column(results, "measured_frame", dtype=np.int32)
        columns["curves"] = stored_polylines(settings, "curve")
        columns["regions"] = stored_polylines(settings, "region")
        cached = _cache["columns"] = (key, columns)
    return cached[1]


def _settings_key(settings) -> tuple:
    return (
        settings.show_arrows, settings.show_labels, settings.arrow_scale, settings.fixed_length_arrows,
        settings.fixed_arrow_length, settings.label_size, tuple(settings.color_penetrating),
        tuple(settings.color_touching), tuple(settings.color_separated), tuple(settings.color_clearance),
        settings.active_result_index, settings.hide_touching, tuple(sorted(settings.show_statuses)),
        settings.show_curves,
    )


def _ui_scale() -> float:
    """Blender's interface scale (resolution scale times display DPI); 1 without a window (it reads 0 then)."""
    preferences = getattr(bpy.context, "preferences", None)
    scale = preferences.system.ui_scale if preferences is not None else 0.0
    return scale if scale > 0.0 else 1.0


def _units_key(units) -> tuple:
    return units.system, units.scale_length, units.length_unit, units.use_separate


def _scene_from_columns(settings, columns: dict, frame: int) -> SceneDrawing:
    """The results the list shows (status filter, Hide Touching) that still clash or are measured now
    (not the vanished clashes kept as 'resolved'), in stored order, and the display style. A scanned result
    whose objects move describes its worst frame: it is drawn at ``frame`` only when that is the one (elsewhere its
    objects are somewhere else)."""
    listed = draw_geometry.status_codes(sorted(visible_statuses(set(settings.show_statuses), settings.hide_touching)))
    elsewhere = columns["frame_bound"] & (columns["measured_frame"] != frame)
    shown = np.flatnonzero(np.isin(columns["codes"], listed) & ~columns["vanished"] & ~elsewhere)
    curves, regions = columns["curves"], columns["regions"]
    if len(shown) < len(columns["codes"]):
        columns = {name: column[shown] for name, column in columns.items() if name not in ("curves", "regions")}
    codes, depths, distances = columns["codes"], columns["depth"], columns["distance"]
    arrays = draw_geometry.ResultArrays(columns["point_a"], columns["point_b"], columns["normal"], depths, codes)
    values = np.select([codes == draw_geometry.PENETRATING, codes == draw_geometry.TOUCHING], [depths, 0.0],
                       distances)
    active = np.searchsorted(shown, settings.active_result_index)
    picked = active < len(shown) and shown[active] == settings.active_result_index and len(shown) > 1
    style = draw_geometry.ArrowStyle(
        colors=np.array([settings.color_penetrating, settings.color_touching, settings.color_separated,
                         settings.color_clearance]),
        highlight=int(active) if picked else -1,  # one result: nothing to pick out
        head_scale=settings.arrow_scale,
        fixed_length_px=settings.fixed_arrow_length if settings.fixed_length_arrows else None,
        label_size_px=float(settings.label_size),
        pixel_scale=_ui_scale(),
    )
    contact = (draw_geometry.contact_geometry(curves, regions, shown, codes, style.colors)
               if settings.show_curves else None)
    volumes = np.where(codes == draw_geometry.PENETRATING, columns["overlap_volume"], 0.0)
    return SceneDrawing(arrays, values, volumes, style, settings.show_arrows, settings.show_labels, contact)


def vanished_clashes(statuses: np.ndarray, review_states: np.ndarray) -> np.ndarray:
    """True for stored clashes that a later analysis no longer found (see ``review.is_vanished_clash``)."""
    return np.isin(statuses, np.array(sorted(CLASHING), dtype=object)) & (review_states == 'resolved')


def label_text(code: int, value: float, volume: float, scene) -> str:
    """The label next to a result's arrow: its depth (and overlap volume, when there is one) or gap, in scene units."""
    if code == draw_geometry.PENETRATING:
        depth = f"depth {format_length(value, scene)}"
        return f"{depth}, {format_volume(volume, scene)}" if volume > 0.0 else depth
    if code in (draw_geometry.SEPARATED, draw_geometry.CLEARANCE):
        return f"gap {format_length(value, scene)}"
    return "touching"
