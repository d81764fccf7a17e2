"""Reading evaluated world-space geometry: points and triangles, and how the engine classifies them."""

import importlib
import math

import bpy
import numpy as np
import pytest


@pytest.fixture
def geometry(addon):
    return importlib.import_module(addon.__name__ + ".analysis.geometry")


def cube_corners(half_extents=(0.5, 0.5, 0.5)) -> np.ndarray:
    signs = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    return signs * half_extents


def evaluated_points(geometry, obj, depsgraph) -> np.ndarray:
    with geometry.evaluated_mesh(obj, depsgraph) as (mesh, matrix):
        return geometry.world_points(mesh, matrix)


def as_sorted_rows(points: np.ndarray) -> np.ndarray:
    return points[np.lexsort(np.round(points, 6).T[::-1])]


def test_world_points_follow_parent_rotation_and_negative_non_uniform_scale(empty_scene, geometry):
    bpy.ops.object.empty_add(location=(1.0, 2.0, 3.0), rotation=(0.0, 0.0, math.pi / 2))
    parent = bpy.context.active_object
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(1.0, 0.0, 0.0), scale=(2.0, -1.0, 0.5))
    child = bpy.context.active_object
    child.parent = parent
    points = evaluated_points(geometry, child, bpy.context.evaluated_depsgraph_get())
    assert points.dtype == np.float64 and points.shape == (8, 3)
    # Local box x in [0, 2] (centre 1, half 1), y half 0.5, z half 0.25; the parent turns x into y.
    local = cube_corners((1.0, 0.5, 0.25)) + (1.0, 0.0, 0.0)
    expected = np.column_stack((-local[:, 1], local[:, 0], local[:, 2])) + (1.0, 2.0, 3.0)
    np.testing.assert_allclose(as_sorted_rows(points), as_sorted_rows(expected), atol=1e-6)


def test_world_points_see_modifiers_and_free_the_temporary_mesh(empty_scene, geometry):
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    cube = bpy.context.active_object
    cube.modifiers.new("Subdivision", 'SUBSURF').levels = 1
    meshes_before = len(bpy.data.meshes)
    points = evaluated_points(geometry, cube, bpy.context.evaluated_depsgraph_get())
    assert len(points) == 26  # 8 corners + 12 edge points + 6 face points
    assert len(bpy.data.meshes) == meshes_before


def test_curve_with_bevel_has_points_and_an_empty_curve_has_none(empty_scene, geometry):
    bpy.ops.curve.primitive_bezier_circle_add(radius=1.0)
    circle = bpy.context.active_object
    depsgraph = bpy.context.evaluated_depsgraph_get()
    without_bevel = evaluated_points(geometry, circle, depsgraph)
    circle.data.bevel_depth = 0.1
    with_bevel = evaluated_points(geometry, circle, bpy.context.evaluated_depsgraph_get())
    assert len(with_bevel) > len(without_bevel)
    assert np.abs(with_bevel[:, 2]).max() == pytest.approx(0.1, abs=1e-3)
    empty_curve = bpy.data.objects.new("NoSplines", bpy.data.curves.new("NoSplines", 'CURVE'))
    empty_scene.collection.objects.link(empty_curve)
    assert evaluated_points(geometry, empty_curve, bpy.context.evaluated_depsgraph_get()).shape == (0, 3)


def read(shapes, obj):
    """``(closed, volume, method)`` of the object's evaluated world-space triangles, as the engine reads them."""
    source = shapes.Source(obj.name, obj, obj)
    solid = shapes.read_solid(source, bpy.context.evaluated_depsgraph_get(), use_hull=False)
    mesh_module = importlib.import_module(shapes.__name__.rpartition(".")[0].rpartition(".")[0] + ".core.mesh")
    return solid.closed, abs(mesh_module.mesh_volume(solid.mesh)), solid.method


@pytest.fixture
def shapes(addon):
    return importlib.import_module(addon.__name__ + ".analysis.shapes")


@pytest.mark.parametrize("scale", [(2.0, 3.0, 0.5), (2.0, -3.0, 0.5)])
def test_box_volume_from_its_triangles(empty_scene, shapes, scale):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(40.0, -7.0, 3.0), scale=scale)
    closed, volume, method = read(shapes, bpy.context.active_object)
    assert closed
    assert volume == pytest.approx(3.0, rel=1e-9)
    assert method == "convex"


def test_small_box_far_from_the_origin_is_convex(empty_scene, shapes):
    bpy.ops.mesh.primitive_cube_add(size=0.002, location=(12345.6, -7890.1, 2000.3), rotation=(0.3, 0.2, 0.1))
    assert read(shapes, bpy.context.active_object)[2] == "convex"


def test_cylinder_volume_is_its_polygon_prism(empty_scene, shapes):
    sides, radius, depth = 24, 0.8, 2.0
    bpy.ops.mesh.primitive_cylinder_add(vertices=sides, radius=radius, depth=depth)  # n-gon caps
    closed, volume, method = read(shapes, bpy.context.active_object)
    prism = sides / 2 * radius**2 * math.sin(2 * math.pi / sides) * depth
    assert closed
    assert volume == pytest.approx(prism, rel=1e-6)
    assert method == "convex"


def test_open_meshes_are_not_closed(empty_scene, shapes):
    bpy.ops.mesh.primitive_plane_add()
    assert not read(shapes, bpy.context.active_object)[0]
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.select_all(action='DESELECT')
    bpy.ops.object.mode_set(mode='OBJECT')
    cube.data.polygons[0].select = True
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.delete(type='FACE')
    bpy.ops.object.mode_set(mode='OBJECT')
    assert not read(shapes, cube)[0]


def test_torus_is_measured_on_its_triangles(empty_scene, shapes):
    major, minor, ring_sides, section_sides = 1.0, 0.25, 48, 12
    bpy.ops.mesh.primitive_torus_add(
        major_radius=major, minor_radius=minor, major_segments=ring_sides, minor_segments=section_sides
    )
    closed, volume, method = read(shapes, bpy.context.active_object)
    assert closed
    # Revolving a regular polygon section along a regular polygon path (Pappus for chords):
    section_area = section_sides / 2 * minor**2 * math.sin(2 * math.pi / section_sides)
    path_factor = ring_sides * math.sin(2 * math.pi / ring_sides)  # 2 pi for a smooth torus
    assert volume == pytest.approx(section_area * major * path_factor, rel=1e-6)
    assert method == "mesh"


def blenders_triangles(mesh: bpy.types.Mesh) -> np.ndarray:
    """The mesh's loop triangles as Blender splits its faces (the reference)."""
    mesh.calc_loop_triangles()
    indices = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int64)
    mesh.loop_triangles.foreach_get('vertices', indices)
    return indices.reshape(-1, 3)


def test_triangles_of_a_subdivided_mesh_are_blenders_in_its_order(empty_scene, geometry):
    bpy.ops.mesh.primitive_monkey_add()  # triangles and quads; under the subdivision, quads only
    monkey = bpy.context.active_object
    depsgraph = bpy.context.evaluated_depsgraph_get()
    with geometry.evaluated_mesh(monkey, depsgraph) as (mesh, _matrix):
        assert {len(face.vertices) for face in mesh.polygons} == {3, 4}
        assert np.array_equal(geometry.world_triangles(mesh), blenders_triangles(mesh))
    monkey.modifiers.new("Subdivision", 'SUBSURF').levels = 2
    depsgraph = bpy.context.evaluated_depsgraph_get()
    with geometry.evaluated_mesh(monkey, depsgraph) as (mesh, _matrix):
        assert {len(face.vertices) for face in mesh.polygons} == {4}
        assert np.array_equal(geometry.world_triangles(mesh), blenders_triangles(mesh))


def test_bent_and_folded_quads_are_split_on_the_diagonal_blender_chooses(empty_scene, geometry):
    rng = np.random.default_rng(7)
    corners = rng.normal(size=(4000, 3)).astype(np.float32)  # 1000 random quads, bent, folded, concave
    faces = [tuple(range(4 * k, 4 * k + 4)) for k in range(1000)]
    mesh = bpy.data.meshes.new("Quads")
    mesh.from_pydata(corners.tolist(), [], faces + [(0, 5, 9)])
    mesh.update()
    starts = np.arange(0, 4001, 4, dtype=np.int32)[:1001]
    sizes = np.array([4] * 1000 + [3], dtype=np.int32)
    corner_verts = np.array([v for face in faces for v in face] + [0, 5, 9], dtype=np.int32)
    split = geometry.quad_triangle_corners(starts, sizes, corner_verts, corners)
    flipped = np.count_nonzero(split[0:2000:2, 2] == starts[:1000] + 3)
    assert 100 < flipped < 900  # both of Blender's splits occur
    assert np.array_equal(geometry.world_triangles(mesh), blenders_triangles(mesh))


def test_n_gons_are_split_by_blender(empty_scene, geometry):
    bpy.ops.mesh.primitive_cylinder_add(vertices=12)  # two 12-gon caps
    with geometry.evaluated_mesh(bpy.context.active_object, bpy.context.evaluated_depsgraph_get()) as (mesh, _m):
        triangles = geometry.world_triangles(mesh)
        assert len(triangles) == 12 * 2 + 2 * 10
        assert np.array_equal(triangles, blenders_triangles(mesh))
