"""Viewport overlay of the self-intersection check: the curves where each object's own faces cross.

Drawn in POST_VIEW with one batch of lines (``draw_geometry.self_intersection_lines``), built from the stored
segments (``analysis.self_check_store``) when they or the display settings change; shown with the Display
panel's intersection curves. The draw callback only reads the scene.
"""

from __future__ import annotations

import bpy
import gpu
import numpy as np
from bpy.app.handlers import persistent
from gpu_extras.batch import batch_for_shader

from ..analysis.app_handlers import DATA_REPLACED, add_handler, remove_handler
from ..analysis.self_check_store import stored_segments
from . import draw_geometry
from .overlay import tag_redraw

LINE_WIDTH_PX = 3.0

_handles: list = []
_cache: dict = {"generation": 0, "key": None, "batch": None}


def add_handlers() -> None:
    """Add the draw callback and the file/undo handlers, once."""
    if not _handles:
        _handles.append(bpy.types.SpaceView3D.draw_handler_add(_draw, (), 'WINDOW', 'POST_VIEW'))
    add_handler(_on_data_replaced, *DATA_REPLACED)
    refresh()


def remove_handlers() -> None:
    for handle in _handles:
        bpy.types.SpaceView3D.draw_handler_remove(handle, 'WINDOW')
    _handles.clear()
    remove_handler(_on_data_replaced, *DATA_REPLACED)
    refresh()


def refresh() -> None:
    """Stored self-intersections changed: rebuild the batch at the next redraw, and redraw."""
    _cache["generation"] += 1
    _cache["key"], _cache["batch"] = None, None
    tag_redraw()


@persistent
def _on_data_replaced(*_args) -> None:
    refresh()


def line_coords(scene: bpy.types.Scene) -> np.ndarray:
    """(2K, 3) the line ends to draw for ``scene`` (none when curves are hidden or nothing was checked)."""
    settings = getattr(scene, "collision_inspector", None)
    if settings is None or not settings.show_curves or not len(settings.self_checks):
        return np.zeros((0, 3), dtype=np.float32)
    shown = np.array([k for k, item in enumerate(settings.self_checks) if item.object is not None], dtype=np.int64)
    return draw_geometry.self_intersection_lines(*stored_segments(settings), shown)


def _batch(scene):
    settings = getattr(scene, "collision_inspector", None)
    if settings is None:
        return None
    key = (_cache["generation"], scene.as_pointer(), len(settings.self_checks), settings.show_curves)
    if _cache["key"] != key:
        coords = line_coords(scene)
        shader = gpu.shader.from_builtin('POLYLINE_UNIFORM_COLOR')
        _cache["batch"] = batch_for_shader(shader, 'LINES', {"pos": coords}) if len(coords) else None
        _cache["key"] = key
    return _cache["batch"]


def draw(scene: bpy.types.Scene, width: int, height: int) -> None:
    """Draw the self-intersection curves of ``scene`` with the current matrices into the bound framebuffer."""
    batch = _batch(scene)
    if batch is None:
        return
    depth_test = gpu.state.depth_test_get()
    gpu.state.blend_set('ALPHA')
    gpu.state.depth_test_set('NONE')  # curves inside the object stay visible
    shader = gpu.shader.from_builtin('POLYLINE_UNIFORM_COLOR')
    shader.bind()
    shader.uniform_float("viewportSize", (width, height))
    shader.uniform_float("lineWidth", LINE_WIDTH_PX)
    shader.uniform_float("color", draw_geometry.SELF_INTERSECTION_COLOR)
    batch.draw(shader)
    gpu.state.blend_set('NONE')
    gpu.state.depth_test_set(depth_test)


def _draw() -> None:
    region = bpy.context.region
    if region is not None:
        draw(bpy.context.scene, region.width, region.height)
