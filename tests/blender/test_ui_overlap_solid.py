"""The active penetrating pair's overlap solid in the overlay: its triangles enclose the stored overlap volume (the
analytic box they share, the core's exact volume for a turned pair), nothing for pairs without one, the draw
geometry and the pixels drawn, computed outside the draw callbacks and leaving the user's scene as it was."""

from __future__ import annotations

import importlib
import math
from types import SimpleNamespace

import bpy
import numpy as np
import pytest
from mathutils import Matrix, Vector

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)

SIZE = 200
PENETRATING_COLOR = (0.9, 0.2, 0.1, 1.0)


@pytest.fixture
def solid(addon):
    module = importlib.import_module(addon.__name__ + ".ui.overlap_solid")
    module.clear()
    yield module
    module.clear()


@pytest.fixture
def draw_geometry(addon):
    return importlib.import_module(addon.__name__ + ".ui.draw_geometry")


@pytest.fixture
def enclosed(addon):
    mesh_volume = importlib.import_module(addon.__name__ + ".core.mesh.volume").mesh_volume
    trimesh = importlib.import_module(addon.__name__ + ".core.mesh.trimesh")
    return lambda mesh: mesh_volume(trimesh.TriangleMesh.from_arrays(mesh.points, mesh.triangles))


def overlapping_boxes(scene) -> tuple[bpy.types.Object, bpy.types.Object]:
    """Two unit cubes, B 0.6 along x (they share the box x 0.1..0.5), analysed; the pair is the active result."""
    a, b = add_cube("Block", 0.0), add_cube("Peg", 0.6)
    select_only(a, b)
    assert analyse() == [("Block", "Peg", 'penetrating')]
    scene.collision_inspector.active_result_index = 0
    return a, b


def scene_state() -> tuple:
    """Every object and mesh by name, with each object's mesh, modifiers and placement."""
    return (sorted((obj.name, obj.data.name, len(obj.modifiers), tuple(map(tuple, obj.matrix_world)))
                   for obj in bpy.data.objects), sorted(mesh.name for mesh in bpy.data.meshes))


def test_the_solid_of_two_boxes_is_the_box_they_share_and_nothing_is_left_behind(empty_scene, solid, enclosed):
    overlapping_boxes(empty_scene)
    before = scene_state()
    mesh = solid.update(bpy.context)
    result = empty_scene.collision_inspector.results[0]
    assert math.isclose(enclosed(mesh), result.overlap_volume, rel_tol=1e-6)
    assert math.isclose(enclosed(mesh), 0.4, rel_tol=1e-6)
    assert np.allclose(mesh.points.min(axis=0), (0.1, -0.5, -0.5), atol=1e-6)
    assert np.allclose(mesh.points.max(axis=0), (0.5, 0.5, 0.5), atol=1e-6)
    assert scene_state() == before
    assert solid.current(empty_scene) is mesh  # cached: the draw gets it without computing


def test_a_turned_pair_gives_the_stored_exact_volume_in_world_space(empty_scene, solid, enclosed):
    _a, b = overlapping_boxes(empty_scene)
    b.rotation_euler = (0.3, 0.5, 0.7)
    b.scale = (1.0, 1.4, 0.8)
    assert analyse() == [("Block", "Peg", 'penetrating')]
    result = empty_scene.collision_inspector.results[0]
    assert result.volume_certainty == 'exact' and result.overlap_volume > 0.05
    assert math.isclose(enclosed(solid.update(bpy.context)), result.overlap_volume, rel_tol=1e-6)


def test_the_draw_asks_for_the_solid_and_moving_an_object_makes_it_stale(empty_scene, solid, overlay):
    a, _b = overlapping_boxes(empty_scene)
    objects = len(bpy.data.objects)
    assert overlay.overlap_batches(empty_scene) is None  # not computed yet: the draw computes nothing
    assert len(bpy.data.objects) == objects
    first = solid.update(bpy.context)
    a.location.x = -0.05
    bpy.context.view_layer.update()
    assert solid.current(empty_scene) is None
    moved = solid.update(bpy.context)
    assert moved is not first and np.isclose(moved.points[:, 0].min(), 0.1)
    assert np.isclose(moved.points[:, 0].max(), 0.45)


def test_nothing_for_a_separated_pair_or_with_overlap_off(empty_scene, solid):
    _a, b = overlapping_boxes(empty_scene)
    settings = empty_scene.collision_inspector
    settings.show_overlap = False
    assert solid.update(bpy.context) is None and solid.current(empty_scene) is None
    settings.show_overlap = True
    b.location.x = 3.0
    assert analyse() == [("Block", "Peg", 'separated')]
    before = scene_state()
    assert solid.update(bpy.context) is None and solid.current(empty_scene) is None
    assert scene_state() == before


def test_pairs_too_big_to_intersect_in_idle_time_get_no_solid(empty_scene, solid, monkeypatch):
    overlapping_boxes(empty_scene)
    assert solid.pair_faces(bpy.context, empty_scene.collision_inspector.results[0]) == 12
    monkeypatch.setattr(solid, "MAX_FACES", 11)
    before = scene_state()
    assert solid.update(bpy.context) is None and solid.current(empty_scene) is None
    solid.clear()  # the limit is a constant: a cached answer stays until the pair changes
    monkeypatch.setattr(solid, "MAX_FACES", 12)
    assert solid.update(bpy.context) is not None
    assert scene_state() == before


def test_draw_geometry_fills_every_triangle_and_outlines_the_creases_only(empty_scene, solid, draw_geometry):
    overlapping_boxes(empty_scene)
    mesh = solid.update(bpy.context)
    geometry = draw_geometry.overlap_geometry(mesh.points, mesh.triangles, PENETRATING_COLOR)
    assert geometry.triangle_coords.shape == (3 * len(mesh.triangles), 3)
    assert np.allclose(geometry.triangle_coords, mesh.points[mesh.triangles].reshape(-1, 3), atol=1e-6)
    assert np.allclose(geometry.triangle_colors[:, 3], PENETRATING_COLOR[3] * draw_geometry.OVERLAP_FILL_ALPHA)
    hue = geometry.triangle_colors[:, :3] / np.asarray(PENETRATING_COLOR[:3], dtype=np.float32)
    assert np.allclose(hue, hue[:, :1], atol=1e-5) and (hue <= 1.0 + 1e-6).all()  # shaded, same hue
    assert np.allclose(geometry.line_colors, PENETRATING_COLOR)
    ends = geometry.line_coords.reshape(-1, 2, 3)
    assert math.isclose(np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1).sum(), 4 * (0.4 + 1.0 + 1.0), rel_tol=1e-6)
    assert (np.abs(ends[:, 1] - ends[:, 0]) > 1e-9).sum(axis=1).tolist() == [1] * len(ends)  # box edges, no diagonals


def test_crease_edges_of_a_tetrahedron_are_its_six_edges_and_an_open_edge_counts(draw_geometry):
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float64)
    triangles = np.array([[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]])
    corners = points[triangles]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    edges = draw_geometry.crease_edges(triangles, normals, 30.0)
    assert sorted(map(tuple, edges.tolist())) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    square = np.array([[0, 1, 2], [1, 3, 2]])  # two coplanar triangles, open: its diagonal is no crease, its sides are
    edges = draw_geometry.crease_edges(square, np.tile([0.0, 0.0, 1.0], (2, 1)), 30.0)
    assert sorted(map(tuple, edges.tolist())) == [(0, 1), (0, 2), (1, 3), (2, 3)]


def top_view(center) -> tuple[Matrix, Matrix]:
    """Orthographic view from +z centred on ``center``: 1 world unit = SIZE pixels."""
    view = Matrix.Translation(-(Vector(center) + Vector((0.0, 0.0, 5.0))))
    return view, Matrix.Diagonal((2.0, 2.0, -0.1, 1.0))


def pixel(point, view: Matrix, projection: Matrix) -> tuple[int, int]:
    clip = projection @ view @ Vector((*point, 1.0))
    return int((clip.x / clip.w + 1.0) * 0.5 * SIZE), int((clip.y / clip.w + 1.0) * 0.5 * SIZE)


def test_the_solid_is_drawn_tinted_where_the_boxes_share_space_only(empty_scene, solid, overlay, snapshot):
    overlapping_boxes(empty_scene)
    settings = empty_scene.collision_inspector
    settings.color_penetrating = PENETRATING_COLOR
    settings.show_arrows = settings.show_labels = settings.show_curves = False
    solid.update(bpy.context)
    view, projection = top_view((0.3, 0.0, 0.0))
    image = snapshot.draw_overlay_offscreen(empty_scene, view, projection, SIZE, SIZE)
    x, y = pixel((0.3, 0.2, 0.0), view, projection)
    assert image[y, x, 3] > 0.2 and image[y, x, 0] > 2 * image[y, x, 1]  # the penetrating red, translucent
    for outside in ((-0.1, 0.2, 0.0), (0.7, 0.2, 0.0)):  # inside one box only
        x, y = pixel(outside, view, projection)
        assert image[y, x, 3] < 0.01, outside
    settings.show_overlap = False
    assert (snapshot.draw_overlay_offscreen(empty_scene, view, projection, SIZE, SIZE)[..., 3] < 0.01).all()


def subdivided_monkey(levels: int) -> bpy.types.Object:
    bpy.ops.mesh.primitive_monkey_add()  # 500 faces, triangles and quads
    monkey = bpy.context.active_object
    monkey.modifiers.new("Subdivision", 'SUBSURF').levels = levels
    return monkey


@pytest.mark.parametrize("levels", [1, 2, 3])
def test_a_subdivided_objects_faces_are_bounded_from_its_own(empty_scene, addon, levels):
    at_least = importlib.import_module(addon.__name__ + ".analysis.shapes").subdivided_faces_at_least
    monkey = subdivided_monkey(levels)
    evaluated = len(monkey.evaluated_get(bpy.context.evaluated_depsgraph_get()).data.polygons)
    assert at_least(monkey) <= evaluated <= at_least(monkey) * 4 / 3  # a triangle makes three quads, a quad four
    monkey.modifiers.new("Fewer", 'DECIMATE')  # may remove faces: no bound
    assert at_least(monkey) == 0


def test_a_pair_whose_own_faces_make_too_many_is_not_evaluated_to_count_them(empty_scene, solid):
    """In the interface the viewport subdivides on the GPU: counting the evaluated faces would have Blender subdivide
    the object on the CPU (seconds for a million faces) in idle time after every move, only to draw nothing."""
    pair = SimpleNamespace(object_a=subdivided_monkey(4), object_b=add_cube("Cube", 0.9))
    assert solid.pair_faces(bpy.context, pair) == 500 * 3 * 4 ** 3 + 6 > solid.MAX_FACES
