"""The overlay with tens of thousands of stored results: labels never fail, texts are formatted only for
what is drawn, and clashes that vanished (kept as 'resolved') are not drawn.

Results are written a column at a time (``foreach_set``), as an analysis of hundreds of objects would
leave them; the drawing goes into an offscreen buffer (see ``test_ui_overlay_gpu``).
"""

from __future__ import annotations

import importlib

import bpy
import numpy as np
import pytest
from mathutils import Matrix, Vector

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)

SIZE = 256
LABEL_COLOR = (0.2, 1.0, 0.3, 1.0)  # penetrating, distinct from the other statuses


def fill_penetrating_results(scene, count: int, seed: int = 0) -> None:
    """``count`` penetrating results with distinct depths (distinct label texts) spread over a 4 x 4 square."""
    rng = np.random.default_rng(seed)
    results = scene.collision_inspector.results
    results.clear()
    for _index in range(count):
        results.add()
    points_b = np.column_stack([rng.uniform(-2.0, 2.0, size=(count, 2)), np.zeros(count)])
    depths = rng.uniform(0.001, 0.05, size=count)
    normals = np.tile([1.0, 0.0, 0.0], (count, 1))
    for name, column in (("point_b_view", points_b), ("point_a_view", points_b + depths[:, None] * normals),
                         ("normal_view", normals), ("signed_distance_view", -depths)):
        results.foreach_set(name, column.ravel())
    results.foreach_set("status", np.zeros(count, dtype=np.int32))  # enum value 0: penetrating
    scene.collision_inspector.color_penetrating = LABEL_COLOR


def top_view(half_extent: float) -> tuple[Matrix, Matrix]:
    """Orthographic view from +z on the origin, ``2 * half_extent`` units across."""
    return (Matrix.Translation(Vector((0.0, 0.0, -5.0))),
            Matrix.Diagonal((1.0 / half_extent, 1.0 / half_extent, -0.1, 1.0)))


def label_pixels(image: np.ndarray) -> int:
    """Pixels in the label colour (the arrows are off in these tests)."""
    return int(np.all(np.abs(image - np.asarray(LABEL_COLOR)) < 0.05, axis=-1).sum())


def test_labels_of_20000_results_at_size_28_are_drawn(overlay, snapshot, empty_scene):
    # One texture holding every label was taller than any GPU allows from ~2,000 labels at this size:
    # nothing was drawn, with a traceback on every redraw.
    fill_penetrating_results(empty_scene, 20_000)
    settings = empty_scene.collision_inspector
    settings.show_arrows = False
    settings.label_size = 28
    overlay.refresh()
    image = snapshot.draw_overlay_offscreen(empty_scene, *top_view(2.5), SIZE, SIZE)
    assert label_pixels(image) > 500


def test_a_rebuild_formats_only_the_labels_it_draws(overlay, snapshot, empty_scene, monkeypatch):
    fill_penetrating_results(empty_scene, 5_000)
    empty_scene.collision_inspector.show_arrows = False
    formatted = []
    real_format_length = overlay.format_length
    monkeypatch.setattr(overlay, "format_length", lambda *args: formatted.append(args) or real_format_length(*args))
    overlay.refresh()
    image = snapshot.draw_overlay_offscreen(empty_scene, *top_view(2.5), SIZE, SIZE)
    assert label_pixels(image) > 500
    assert 0 < len(formatted) <= overlay.MAX_DETAILED  # every label text was formatted before
    formatted.clear()
    empty_scene.collision_inspector.active_result_index = 7  # what Next changes
    snapshot.draw_overlay_offscreen(empty_scene, *top_view(2.5), SIZE, SIZE)
    assert len(formatted) <= 3  # texts drawn before are kept: only those that came into the detail set are new


def test_labels_beyond_the_detail_limit_go_to_the_nearest_results(overlay, snapshot, empty_scene):
    fill_penetrating_results(empty_scene, 3_000)
    empty_scene.collision_inspector.show_arrows = False
    overlay.refresh()
    everything = label_pixels(snapshot.draw_overlay_offscreen(empty_scene, *top_view(2.5), SIZE, SIZE))
    overlay.MAX_DETAILED, limit = 10, overlay.MAX_DETAILED
    try:
        overlay.refresh()
        ten = label_pixels(snapshot.draw_overlay_offscreen(empty_scene, *top_view(2.5), SIZE, SIZE))
    finally:
        overlay.MAX_DETAILED = limit
        overlay.refresh()
    assert 0 < ten < everything


def test_clashes_that_vanished_are_not_drawn(overlay, snapshot, empty_scene):
    add_cube("A", 0.0)
    add_cube("B", 0.9)
    select_only()
    assert analyse('ALL') == [("A", "B", 'penetrating')]
    settings = empty_scene.collision_inspector
    settings.color_penetrating = LABEL_COLOR
    view = (Matrix.Translation(Vector((-0.45, 0.0, -5.0))), Matrix.Diagonal((2.0, 2.0, -0.1, 1.0)))
    assert snapshot.draw_overlay_offscreen(empty_scene, *view, SIZE, SIZE)[..., 3].max() > 0.5
    bpy.data.objects["B"].location.x = 3.0
    analyse('ALL')  # A-B vanished: kept in the list as resolved, with its last numbers
    (result,) = settings.results
    assert (result.status, result.review_state) == ('penetrating', 'resolved')
    assert snapshot.draw_overlay_offscreen(empty_scene, *view, SIZE, SIZE)[..., 3].max() == 0.0


@pytest.fixture(scope="module")
def geometry(addon):
    return importlib.import_module(addon.__name__ + ".ui.draw_geometry")


def test_results_off_screen_or_behind_the_eye_are_culled(geometry):
    # Eye at z = 10 looking down -z (orthographic, 2 x 2 units seen): one arrow in view, one far to the
    # side, one behind the eye, one crossing the eye's plane (kept: its projection is not a box).
    view = np.eye(4)
    view[2, 3] = -10.0
    projection = np.diag([1.0, 1.0, -0.01, 1.0])
    projection[3] = [0.0, 0.0, -1.0, 0.0]  # perspective w = distance in front of the eye
    points_b = np.array([[0.0, 0.0, 0.0], [500.0, 0.0, 0.0], [0.0, 0.0, 20.0], [0.0, 0.0, 5.0]])
    normals = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    depths = np.array([0.1, 0.1, 0.1, 10.0])
    arrays = geometry.ResultArrays(points_b + depths[:, None] * normals, points_b, normals, depths,
                                   geometry.status_codes(['penetrating'] * 3 + ['separated']))
    style = geometry.ArrowStyle(colors=np.ones((4, 4)), highlight=3)
    out = geometry.compute_overlay_geometry(arrays, view, projection, (200, 200), style, cull=True)
    assert out.rows.tolist() == [0, 3]
    assert (len(out.line_coords), len(out.triangle_coords), len(out.label_anchors)) == (4, 3, 2)  # one head
    everything = geometry.compute_overlay_geometry(arrays, view, projection, (200, 200), style)
    assert everything.rows.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(out.line_coords, everything.line_coords[[0, 1, 6, 7]])
    np.testing.assert_allclose(out.line_colors, everything.line_colors[[0, 1, 6, 7]])  # result 3 highlighted
