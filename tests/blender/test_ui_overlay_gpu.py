"""The viewport overlay drawn for real: offscreen with a known view, pixels read back and checked.

Also the handlers' life cycle and the snapshot image. Runs headless: ``snapshot.ensure_gpu`` initialises
the GPU (``gpu.init()`` on 5.2+, a tiny Workbench render on older builds).
"""

from __future__ import annotations


import bpy
import numpy as np
import pytest
from mathutils import Matrix, Vector

SIZE = 200
HALF_EXTENT = 0.5  # the orthographic view shows 1 x 1 world units
PENETRATING_COLOR = (0.9, 0.2, 0.1, 1.0)
COLOR_TOLERANCE = 0.02


@pytest.fixture
def two_cubes(empty_scene):
    """Unit cubes 0.9 apart on x, analysed: penetrating by 0.1 along +x."""
    for name, x in (("A", 0.0), ("B", 0.9)):
        bpy.ops.mesh.primitive_cube_add(size=1.0, location=(x, 0.0, 0.0))
        bpy.context.object.name = name
    for obj in empty_scene.objects:
        obj.select_set(True)
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    settings = empty_scene.collision_inspector
    settings.color_penetrating = PENETRATING_COLOR
    settings.show_curves = False  # the arrow and its label only (contact regions have their own test)
    (result,) = settings.results
    assert result.status == 'penetrating'
    return empty_scene


def top_view(center: Vector) -> tuple[Matrix, Matrix]:
    """Orthographic view from +z centred on ``center``: x to the right, y up, 1 unit = SIZE pixels."""
    view = Matrix.Translation(-(center + Vector((0.0, 0.0, 5.0))))
    projection = Matrix.Diagonal((1.0 / HALF_EXTENT, 1.0 / HALF_EXTENT, -0.1, 1.0))
    return view, projection


def to_pixel(point, view: Matrix, projection: Matrix) -> tuple[int, int]:
    clip = projection @ view @ Vector((*point, 1.0))
    return int((clip.x / clip.w + 1.0) * 0.5 * SIZE), int((clip.y / clip.w + 1.0) * 0.5 * SIZE)


def draw(snapshot, scene, view, projection) -> np.ndarray:
    return snapshot.draw_overlay_offscreen(scene, view, projection, SIZE, SIZE)


def colored(image: np.ndarray, rgba=PENETRATING_COLOR) -> np.ndarray:
    """Mask of pixels drawn opaque in ``rgba``."""
    return np.all(np.abs(image - np.asarray(rgba)) < COLOR_TOLERANCE, axis=-1)


def drawn(image: np.ndarray) -> np.ndarray:
    """Mask of pixels the overlay touched (the buffer starts transparent)."""
    return image[..., 3] > 0.01


def contact_view(scene):
    result = scene.collision_inspector.results[0]
    a, b = Vector(result.point_a), Vector(result.point_b)
    return (a, b), top_view((a + b) / 2)


def test_arrow_is_drawn_in_the_penetrating_colour_where_the_contact_projects(overlay, snapshot, two_cubes):
    two_cubes.collision_inspector.show_labels = False
    (a, b), (view, projection) = contact_view(two_cubes)
    image = draw(snapshot, two_cubes, view, projection)
    red = colored(image)
    for point in (a, b, b.lerp(a, 0.3)):  # both witness points and the shaft
        x, y = to_pixel(point, view, projection)
        assert red[y - 1:y + 2, x - 1:x + 2].any(), f"no arrow colour at {point} -> pixel {(x, y)}"
    # Nothing else is drawn: every touched pixel is near the arrow (within the head and point sizes); a short
    # arrow's shaft reaches back beyond B to the arrows' least on-screen length.
    rows, columns = np.nonzero(drawn(image))
    (x_a, y_a), (x_b, y_b) = to_pixel(a, view, projection), to_pixel(b, view, projection)
    x_tail = x_a - max(abs(x_a - x_b), overlay.draw_geometry.ArrowStyle.min_length_px) * np.sign(x_a - x_b)
    margin = 16
    assert columns.min() >= min(x_a, x_tail) - margin and columns.max() <= max(x_a, x_tail) + margin
    assert rows.min() >= min(y_a, y_b) - margin and rows.max() <= max(y_a, y_b) + margin
    assert red.sum() > 20


def test_nothing_is_drawn_when_arrows_and_labels_are_off(overlay, snapshot, two_cubes):
    settings = two_cubes.collision_inspector
    settings.show_arrows = False
    settings.show_labels = False
    _, (view, projection) = contact_view(two_cubes)
    assert not drawn(draw(snapshot, two_cubes, view, projection)).any()


def test_contact_region_is_filled_where_a_box_rests_in_another(overlay, snapshot, empty_scene):
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=(0.0, 0.0, -1.0))  # top face at z = 0
    bpy.context.object.name = "Table"
    bpy.ops.mesh.primitive_cube_add(size=0.5, location=(0.3, 0.2, 0.2))  # 0.05 deep: a 0.5 x 0.5 patch
    bpy.context.object.name = "Block"
    for obj in empty_scene.objects:
        obj.select_set(True)
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    settings = empty_scene.collision_inspector
    (result,) = settings.results
    assert result.region_area == pytest.approx(0.25, rel=1e-9)
    settings.show_arrows = settings.show_labels = False
    view, projection = top_view(Vector((0.3, 0.2, 0.0)))
    image = draw(snapshot, empty_scene, view, projection)
    inside = [to_pixel((0.3 + dx, 0.2 + dy, 0.0), view, projection) for dx in (-0.2, 0.2) for dy in (-0.2, 0.2)]
    assert all(drawn(image)[y, x] for x, y in inside)
    outside = to_pixel((0.3, 0.6, 0.0), view, projection)  # 0.4 from the centre, the patch is 0.25
    assert not drawn(image)[outside[1], outside[0]]
    settings.show_curves = False
    assert not drawn(draw(snapshot, empty_scene, view, projection)).any()


def test_labels_are_drawn_beside_the_arrow(overlay, snapshot, two_cubes):
    settings = two_cubes.collision_inspector
    settings.show_arrows = False
    settings.label_size = 12
    (a, b), _view = contact_view(two_cubes)
    view, projection = top_view((a + b) / 2 + Vector((0.5 * HALF_EXTENT, 0.0, 0.0)))  # the arrow at a quarter
    image = draw(snapshot, two_cubes, view, projection)
    rows, columns = np.nonzero(drawn(image))
    assert len(rows) > 50, "the label left (almost) no pixels"
    assert colored(image).any(), "no label pixel in the status colour"
    x_middle, y_middle = to_pixel((a + b) / 2, view, projection)
    # Text starts at the middle of the arrow and sits above it (the arrow is horizontal).
    assert abs(columns.min() - x_middle) < 12 and rows.min() > y_middle
    assert columns.max() - columns.min() > 3 * settings.label_size  # "depth 0.1 m" is wide


def test_a_label_that_would_run_past_the_right_edge_is_drawn_left_of_its_arrow(overlay, snapshot, two_cubes):
    """With the arrow at three quarters of the view's width, the label is wider than the room on its right: it
    ends left of the arrow's middle, whole, instead of being cut off by the view's edge."""
    settings = two_cubes.collision_inspector
    settings.show_arrows = False
    settings.label_size = 12
    (a, b), _view = contact_view(two_cubes)
    view, projection = top_view((a + b) / 2 - Vector((0.5 * HALF_EXTENT, 0.0, 0.0)))
    image = draw(snapshot, two_cubes, view, projection)
    rows, columns = np.nonzero(drawn(image))
    x_middle, y_middle = to_pixel((a + b) / 2, view, projection)
    assert columns.max() < x_middle and columns.min() > 0 and rows.min() > y_middle
    assert columns.max() - columns.min() > 3 * settings.label_size


def test_labels_sit_on_a_dark_backdrop_readable_over_anything(overlay, snapshot, two_cubes):
    """The label is a box: its pixels are nearly all drawn, nearly opaque, and mostly dark (the text's colour only
    where the glyphs are), so that red text over a red contact region or a curve stays readable."""
    settings = two_cubes.collision_inspector
    settings.show_arrows = False
    settings.label_size = 16
    _points, (view, projection) = contact_view(two_cubes)
    image = draw(snapshot, two_cubes, view, projection)
    rows, columns = np.nonzero(drawn(image))
    box = image[rows.min():rows.max() + 1, columns.min():columns.max() + 1]
    assert (box[..., 3] > 0.6).mean() > 0.9
    assert (box[..., :3].max(axis=-1) < 0.15).mean() > 0.5


def test_settings_change_the_drawing_without_an_explicit_refresh(overlay, snapshot, two_cubes):
    settings = two_cubes.collision_inspector
    settings.show_labels = False
    _, (view, projection) = contact_view(two_cubes)
    assert colored(draw(snapshot, two_cubes, view, projection)).any()
    settings.color_penetrating = (0.1, 0.3, 0.9, 1.0)
    image = draw(snapshot, two_cubes, view, projection)
    assert not colored(image).any()
    assert colored(image, (0.1, 0.3, 0.9, 1.0)).any()


def test_refresh_picks_up_changed_results(overlay, snapshot, two_cubes):
    settings = two_cubes.collision_inspector
    settings.show_labels = False
    (a, b), (view, projection) = contact_view(two_cubes)
    draw(snapshot, two_cubes, view, projection)
    result = settings.results[0]
    shift = Vector((0.0, 0.3, 0.0))
    result.point_a, result.point_b = a + shift, b + shift
    overlay.refresh()
    red = colored(draw(snapshot, two_cubes, view, projection))
    x, y = to_pixel(b.lerp(a, 0.3) + shift, view, projection)
    assert red[y - 1:y + 2, x - 1:x + 2].any()
    x, y = to_pixel(b.lerp(a, 0.3), view, projection)
    assert not red[y - 3:y + 4, x - 3:x + 4].any()


def test_results_still_draw_after_their_objects_are_deleted(overlay, snapshot, two_cubes):
    two_cubes.collision_inspector.show_labels = False
    (a, b), (view, projection) = contact_view(two_cubes)
    bpy.data.objects.remove(bpy.data.objects["B"])
    overlay.refresh()
    red = colored(draw(snapshot, two_cubes, view, projection))
    x, y = to_pixel(b.lerp(a, 0.3), view, projection)
    assert red[y - 1:y + 2, x - 1:x + 2].any()


def test_cleared_results_draw_nothing(overlay, snapshot, two_cubes):
    assert bpy.ops.collision_inspector.clear() == {'FINISHED'}
    view, projection = top_view(Vector((0.45, 0.0, 0.0)))
    assert not drawn(draw(snapshot, two_cubes, view, projection)).any()


def test_handlers_are_added_once_and_removed_cleanly(overlay):
    lists = (bpy.app.handlers.load_post, bpy.app.handlers.undo_post, bpy.app.handlers.redo_post)

    def ours(handler_list):
        return [h for h in handler_list if getattr(h, "__module__", None) == overlay.__name__]

    assert overlay.handlers_installed()
    try:
        overlay.add_handlers()
        overlay.add_handlers()
        assert all(len(ours(handler_list)) == 1 for handler_list in lists)
        # Persistent, or Blender would drop them on the first file load.
        assert all(hasattr(h, "_bpy_persistent") for handler_list in lists for h in ours(handler_list))
        overlay.remove_handlers()
        overlay.remove_handlers()
        assert not overlay.handlers_installed()
        assert all(not ours(handler_list) for handler_list in lists)
    finally:
        overlay.add_handlers()
    assert overlay.handlers_installed()
    assert all(len(ours(handler_list)) == 1 for handler_list in lists)


def test_refresh_is_safe_without_windows(overlay):
    overlay.refresh()
    overlay.refresh()


def test_snapshot_shows_the_arrow_and_leaves_the_scene_as_it_was(snapshot, two_cubes, tmp_path):
    scene = two_cubes
    camera = bpy.data.objects.new("Snapshot Camera", bpy.data.cameras.new("Snapshot Camera"))
    scene.collection.objects.link(camera)
    camera.location = (0.45, -4.0, 0.0)
    camera.rotation_euler = (np.pi / 2, 0.0, 0.0)  # looking along +y at the contact
    render = scene.render
    before = (render.engine, render.resolution_x, render.resolution_y, scene.camera, len(bpy.data.images))
    path = snapshot.render_overlay_snapshot(scene, camera, str(tmp_path / "overlay.png"), width=160, height=120)
    assert (render.engine, render.resolution_x, render.resolution_y, scene.camera, len(bpy.data.images)) == before

    image = bpy.data.images.load(path)
    try:
        assert tuple(image.size) == (160, 120)
        pixels = np.empty(160 * 120 * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
    finally:
        bpy.data.images.remove(image)
    pixels = pixels.reshape(120, 160, 4)
    result = scene.collision_inspector.results[0]
    view, projection = snapshot.camera_matrices(scene, camera, 160, 120)
    clip = projection @ view @ Vector((*Vector(result.point_b).lerp(Vector(result.point_a), 0.5), 1.0))
    x, y = int((clip.x / clip.w + 1) * 80), int((clip.y / clip.w + 1) * 60)
    assert colored(pixels[y - 2:y + 3, x - 2:x + 3], PENETRATING_COLOR).any()
    grey = np.abs(pixels[..., 0] - pixels[..., 1]) < 0.05
    assert grey.mean() > 0.9, "the Workbench render is not behind the overlay"
