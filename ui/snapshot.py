"""An image of the overlay without a window: a Workbench render from a camera with arrows and labels on top.

Works headless (``blender --background`` and the PyPI ``bpy`` module) once the GPU is initialised,
which ``ensure_gpu`` does. The user's scene is left as it was: render settings are restored and the
temporary images removed.
"""

from __future__ import annotations

import ctypes
import os
import sys
import tempfile
from contextlib import contextmanager

import bpy
import gpu
import numpy as np
from mathutils import Matrix

from . import overlap_solid
from .overlay import draw_scene_overlay, release_gpu_resources


def ensure_gpu() -> None:
    """Make ``gpu`` drawing work in background mode (no-op when it already works).

    Blender 5.2+ has ``gpu.init()``. Older builds (4.2, the 5.0 ``bpy`` module) have none, but one tiny
    Workbench render initialises the GPU backend as a side effect.
    """
    if _gpu_works():
        return
    _check_gpu_context_possible()
    if hasattr(gpu, "init"):
        gpu.init()
    else:
        _render_tiny_workbench_image()
    if not _gpu_works():
        raise RuntimeError("Could not initialise the GPU for drawing in background mode")


def _check_gpu_context_possible() -> None:
    """Raise instead of letting Blender abort the process when it cannot open any GPU context.

    Without a display, Blender on Linux opens its context through EGL; a missing ``libEGL.so.1``
    makes it abort (seen with a Debian Blender root that lacks the ``libegl1`` package).
    """
    if sys.platform != "linux" or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    try:
        ctypes.CDLL("libEGL.so.1")
    except OSError as error:
        raise RuntimeError(
            f"Cannot draw headless: no display and {error}; install libEGL (Debian: libegl1) or run "
            "Blender with a virtual display (xvfb-run)"
        ) from error


def _gpu_works() -> bool:
    try:
        gpu.shader.from_builtin('UNIFORM_COLOR')
    except SystemError:  # "GPU functions for drawing are not available in background mode"
        return False
    return True


def _render_tiny_workbench_image() -> None:
    """Render 8x8 pixels with Workbench in a throw-away scene, then delete everything it created."""
    had_render_result = "Render Result" in bpy.data.images
    scene = bpy.data.scenes.new("collision_inspector_gpu_init")
    camera = bpy.data.objects.new("collision_inspector_gpu_init", bpy.data.cameras.new("collision_inspector_gpu_init"))
    try:
        scene.collection.objects.link(camera)
        scene.camera = camera
        scene.render.engine = 'BLENDER_WORKBENCH'
        scene.render.resolution_x = scene.render.resolution_y = 8
        scene.render.resolution_percentage = 100
        bpy.ops.render.render(scene=scene.name)
    finally:
        camera_data = camera.data
        bpy.data.objects.remove(camera)
        bpy.data.cameras.remove(camera_data)
        bpy.data.scenes.remove(scene)
        if not had_render_result and "Render Result" in bpy.data.images:
            bpy.data.images.remove(bpy.data.images["Render Result"])


def render_overlay_snapshot(
    scene: bpy.types.Scene, camera: bpy.types.Object, filepath: str, width: int = 1280, height: int = 720
) -> str:
    """Render ``scene`` from ``camera`` with Workbench, draw the overlay on top and save a PNG at ``filepath``.

    Returns the absolute path written. Drawing uses the camera's own view and projection, so arrows
    and labels sit exactly where the objects are in the render.
    """
    ensure_gpu()
    if scene == bpy.context.scene:
        overlap_solid.update(bpy.context)  # the active pair's overlap solid, which the viewport computes in idle time
    filepath = os.path.abspath(bpy.path.abspath(filepath))
    background = _render_workbench(scene, camera, width, height)
    overlay = draw_overlay_offscreen(scene, *camera_matrices(scene, camera, width, height), width, height)
    alpha = overlay[..., 3:4]
    composite = overlay[..., :3] + background[..., :3] * (1.0 - alpha)  # overlay is premultiplied
    _save_png(np.concatenate([composite, np.ones_like(alpha)], axis=-1), width, height, filepath)
    return filepath


def camera_matrices(scene: bpy.types.Scene, camera: bpy.types.Object, width: int, height: int) -> tuple[Matrix, Matrix]:
    """View (world to eye) and projection (eye to clip) matrices of ``camera`` for an image of this size."""
    if scene == bpy.context.scene:
        depsgraph = bpy.context.evaluated_depsgraph_get()
    else:
        depsgraph = scene.view_layers[0].depsgraph
    return camera.matrix_world.inverted(), camera.calc_matrix_camera(depsgraph, x=width, y=height)


@contextmanager
def _attributes_set(owner, **values):
    """Set attributes of ``owner`` for the duration of the block, then put the old values back."""
    old = {name: getattr(owner, name) for name in values}
    try:
        for name, value in values.items():
            setattr(owner, name, value)
        yield
    finally:
        for name, value in old.items():
            setattr(owner, name, value)


def _render_workbench(scene, camera, width: int, height: int) -> np.ndarray:
    """The Workbench render of ``scene`` from ``camera`` as (height, width, 4) floats, bottom row first."""
    render = scene.render
    had_render_result = "Render Result" in bpy.data.images
    with tempfile.TemporaryDirectory(prefix="collision_inspector_") as directory, \
            _attributes_set(scene, camera=camera), \
            _attributes_set(render, engine='BLENDER_WORKBENCH', resolution_x=width, resolution_y=height,
                            resolution_percentage=100, film_transparent=False), \
            _attributes_set(scene.view_settings, view_transform='Standard', look='None', exposure=0.0, gamma=1.0):
        bpy.ops.render.render(scene=scene.name)
        path = os.path.join(directory, "render.png")
        bpy.data.images["Render Result"].save_render(path, scene=scene)
        image = bpy.data.images.load(path)
        try:
            pixels = np.empty(width * height * 4, dtype=np.float32)
            image.pixels.foreach_get(pixels)
        finally:
            bpy.data.images.remove(image)
    if not had_render_result:
        bpy.data.images.remove(bpy.data.images["Render Result"])
    return pixels.reshape(height, width, 4)


def draw_overlay_offscreen(
    scene: bpy.types.Scene, view_matrix: Matrix, projection_matrix: Matrix, width: int, height: int
) -> np.ndarray:
    """The overlay alone drawn for this view: premultiplied RGBA (height, width, 4) floats, bottom row first.

    Needs an initialised GPU (``ensure_gpu``). The buffer starts transparent black.
    """
    offscreen = gpu.types.GPUOffScreen(width, height)
    try:
        with offscreen.bind():
            framebuffer = gpu.state.active_framebuffer_get()
            framebuffer.clear(color=(0.0, 0.0, 0.0, 0.0), depth=1.0)
            draw_scene_overlay(scene, view_matrix, projection_matrix, width, height)
            buffer = framebuffer.read_color(0, 0, width, height, 4, 0, 'FLOAT')
    finally:
        release_gpu_resources()
        offscreen.free()
    buffer.dimensions = width * height * 4
    return np.asarray(buffer, dtype=np.float32).reshape(height, width, 4)


def _save_png(pixels: np.ndarray, width: int, height: int, filepath: str) -> None:
    """Write (height, width, 4) floats in display space as an 8-bit PNG, via a temporary image datablock."""
    image = bpy.data.images.new("collision_inspector_snapshot", width, height, alpha=False)
    try:
        image.pixels.foreach_set(np.clip(pixels, 0.0, 1.0).astype(np.float32).ravel())
        image.filepath_raw = filepath
        image.file_format = 'PNG'
        image.save()
    finally:
        bpy.data.images.remove(image)
