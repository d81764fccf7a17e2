"""Reading evaluated world-space geometry, and the convexity check behind the hull note."""

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


def as_sorted_rows(points: np.ndarray) -> np.ndarray:
    return points[np.lexsort(np.round(points, 6).T[::-1])]


def test_world_points_follow_parent_rotation_and_negative_non_uniform_scale(empty_scene, geometry):
    bpy.ops.object.empty_add(location=(1.0, 2.0, 3.0), rotation=(0.0, 0.0, math.pi / 2))
    parent = bpy.context.active_object
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(1.0, 0.0, 0.0), scale=(2.0, -1.0, 0.5))
    child = bpy.context.active_object
    child.parent = parent
    points = geometry.evaluated_world_points(child, bpy.context.evaluated_depsgraph_get())
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
    points = geometry.evaluated_world_points(cube, bpy.context.evaluated_depsgraph_get())
    assert len(points) == 26  # 8 corners + 12 edge points + 6 face points
    assert len(bpy.data.meshes) == meshes_before


def test_curve_with_bevel_has_points_and_an_empty_curve_has_none(empty_scene, geometry):
    bpy.ops.curve.primitive_bezier_circle_add(radius=1.0)
    circle = bpy.context.active_object
    depsgraph = bpy.context.evaluated_depsgraph_get()
    without_bevel = geometry.evaluated_world_points(circle, depsgraph)
    circle.data.bevel_depth = 0.1
    with_bevel = geometry.evaluated_world_points(circle, bpy.context.evaluated_depsgraph_get())
    assert len(with_bevel) > len(without_bevel)
    assert np.abs(with_bevel[:, 2]).max() == pytest.approx(0.1, abs=1e-3)
    empty_curve = bpy.data.objects.new("NoSplines", bpy.data.curves.new("NoSplines", 'CURVE'))
    empty_scene.collection.objects.link(empty_curve)
    assert geometry.evaluated_world_points(empty_curve, bpy.context.evaluated_depsgraph_get()).shape == (0, 3)


def read(geometry, obj):
    """``(is_closed, volume or None, hull volume)`` of the object's evaluated mesh."""
    with geometry.evaluated_mesh(obj, bpy.context.evaluated_depsgraph_get()) as (mesh, matrix):
        points = geometry.world_points(mesh, matrix)
        closed = geometry.is_closed(mesh)
        volume = geometry.closed_mesh_volume(mesh, points) if closed else None
        return closed, volume, geometry.hull_volume_lower_bound(points)


@pytest.mark.parametrize("scale", [(2.0, 3.0, 0.5), (2.0, -3.0, 0.5)])
def test_box_volume_and_hull_volume_agree(empty_scene, geometry, scale):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(40.0, -7.0, 3.0), scale=scale)
    closed, volume, hull = read(geometry, bpy.context.active_object)
    assert closed
    assert volume == pytest.approx(3.0, rel=1e-6)
    assert hull == pytest.approx(3.0, rel=1e-6)


def test_cylinder_volume_is_its_polygon_prism(empty_scene, geometry):
    sides, radius, depth = 24, 0.8, 2.0
    bpy.ops.mesh.primitive_cylinder_add(vertices=sides, radius=radius, depth=depth)  # n-gon caps
    closed, volume, hull = read(geometry, bpy.context.active_object)
    prism = sides / 2 * radius**2 * math.sin(2 * math.pi / sides) * depth
    assert closed
    assert volume == pytest.approx(prism, rel=1e-6)
    assert hull == pytest.approx(prism, rel=1e-5)


def test_open_meshes_are_not_closed(empty_scene, geometry):
    bpy.ops.mesh.primitive_plane_add()
    assert not read(geometry, bpy.context.active_object)[0]
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.select_all(action='DESELECT')
    bpy.ops.object.mode_set(mode='OBJECT')
    cube.data.polygons[0].select = True
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.delete(type='FACE')
    bpy.ops.object.mode_set(mode='OBJECT')
    assert not read(geometry, cube)[0]


def test_torus_hull_is_larger_than_the_torus(empty_scene, geometry):
    major, minor, ring_sides, section_sides = 1.0, 0.25, 48, 12
    bpy.ops.mesh.primitive_torus_add(
        major_radius=major, minor_radius=minor, major_segments=ring_sides, minor_segments=section_sides
    )
    torus = bpy.context.active_object
    closed, volume, hull = read(geometry, torus)
    assert closed
    # Revolving a regular polygon section along a regular polygon path (Pappus for chords):
    section_area = section_sides / 2 * minor**2 * math.sin(2 * math.pi / section_sides)
    path_factor = ring_sides * math.sin(2 * math.pi / ring_sides)  # 2 pi for a smooth torus
    assert volume == pytest.approx(section_area * major * path_factor, rel=1e-6)
    assert hull > 1.5 * volume
    with geometry.evaluated_mesh(torus, bpy.context.evaluated_depsgraph_get()) as (mesh, matrix):
        note = geometry.hull_note("Torus", mesh, geometry.world_points(mesh, matrix))
    assert note.startswith("Torus is not convex: its convex hull has ")


def test_meshes_above_the_vertex_limit_say_they_were_not_checked(empty_scene, geometry, monkeypatch):
    bpy.ops.mesh.primitive_uv_sphere_add(segments=16, ring_count=8)
    sphere = bpy.context.active_object
    with geometry.evaluated_mesh(sphere, bpy.context.evaluated_depsgraph_get()) as (mesh, matrix):
        points = geometry.world_points(mesh, matrix)
        assert geometry.hull_note("Ball", mesh, points) == ""  # convex
        monkeypatch.setattr(geometry, "HULL_CHECK_MAX_VERTICES", len(points) - 1)
        note = geometry.hull_note("Ball", mesh, points)
    assert note == (
        f"Ball has {len(points)} vertices, too many for the convexity check; "
        "the results are about its convex hull"
    )
