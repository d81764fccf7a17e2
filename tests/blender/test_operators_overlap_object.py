"""Make Overlap Object: the shared volume of a penetrating pair as a new mesh object, checked against the
analytic overlap of two boxes and against the core's exact overlap volume; refusals name the pair."""

from __future__ import annotations

import importlib
import math

import bpy
import numpy as np
import pytest

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)


@pytest.fixture
def volume(addon):
    mesh_volume = importlib.import_module(addon.__name__ + ".core.mesh.volume").mesh_volume
    trimesh = importlib.import_module(addon.__name__ + ".core.mesh.trimesh")

    def of(obj: bpy.types.Object) -> float:
        """The enclosed volume of ``obj``'s triangles in world space."""
        mesh = obj.data
        mesh.calc_loop_triangles()
        points = np.array([obj.matrix_world @ vertex.co for vertex in mesh.vertices], dtype=np.float64)
        triangles = np.array([tuple(triangle.vertices) for triangle in mesh.loop_triangles], dtype=np.int64)
        return mesh_volume(trimesh.TriangleMesh.from_arrays(points, triangles))

    return of


def overlapping_boxes() -> tuple[bpy.types.Object, bpy.types.Object]:
    """Two unit cubes, B 0.6 along x (they share a 0.4 x 1 x 1 box)."""
    a, b = add_cube("Block", 0.0), add_cube("Peg", 0.6)
    select_only(a, b)
    return a, b


def test_the_overlap_of_two_boxes_is_the_box_they_share(empty_scene, volume):
    overlapping_boxes()
    assert analyse() == [("Block", "Peg", 'penetrating')]
    objects = len(bpy.data.objects)
    assert bpy.ops.collision_inspector.make_overlap_object(index=-1) == {'FINISHED'}
    made = bpy.data.objects["Overlap Block \u2229 Peg"]
    assert len(bpy.data.objects) == objects + 1 and made.name in bpy.context.collection.objects
    assert math.isclose(volume(made), 0.4, rel_tol=1e-6)
    corners = np.array([made.matrix_world @ vertex.co for vertex in made.data.vertices])
    assert np.allclose(corners.min(axis=0), (0.1, -0.5, -0.5), atol=1e-6)
    assert np.allclose(corners.max(axis=0), (0.5, 0.5, 0.5), atol=1e-6)
    assert not made.modifiers and bpy.data.objects["Block"].data.name == "Block"  # the pair is left as it was


def test_a_turned_pair_gives_the_cores_exact_overlap_volume(empty_scene, volume):
    _a, b = overlapping_boxes()
    b.rotation_euler = (0.3, 0.5, 0.7)
    b.scale = (1.0, 1.4, 0.8)
    assert analyse() == [("Block", "Peg", 'penetrating')]
    result = empty_scene.collision_inspector.results[0]
    assert result.volume_certainty == 'exact' and result.overlap_volume > 0.05
    assert bpy.ops.collision_inspector.make_overlap_object() == {'FINISHED'}
    assert math.isclose(volume(bpy.data.objects["Overlap Block \u2229 Peg"]), result.overlap_volume, rel_tol=1e-6)


def test_a_pair_without_overlap_volume_is_refused_naming_it(empty_scene):
    _a, b = overlapping_boxes()
    b.location.x = 3.0
    assert analyse() == [("Block", "Peg", 'separated')]
    objects = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="Block \u2194 Peg has no overlap volume: it is separated"):
        bpy.ops.collision_inspector.make_overlap_object()
    assert len(bpy.data.objects) == objects


def test_an_open_surface_has_no_inside_to_share(empty_scene):
    _a, b = overlapping_boxes()
    sheet = bpy.data.meshes.new("Sheet")
    sheet.from_pydata([(-0.5, -2, -2), (-0.5, 2, -2), (-0.5, 2, 2), (-0.5, -2, 2)], [], [(0, 1, 2, 3)])
    b.data = sheet  # Peg is now an open sheet through the block
    assert analyse() == [("Block", "Peg", 'penetrating')]
    with pytest.raises(RuntimeError, match="Block \u2194 Peg has no overlap volume: an object is an open surface"):
        bpy.ops.collision_inspector.make_overlap_object()
