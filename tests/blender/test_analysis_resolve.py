"""Resolve: B moves out of A by the push-out (plus a clearance), in world space even under a parent; the
pair is then touching or apart (analytic answers for cubes, an L-shaped non-convex object); refusals."""

from __future__ import annotations

import math

import bpy
import pytest

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)
from test_analysis_live import l_shape, result


def overlapping_cubes() -> None:
    """A at x=0, B at x=0.8: penetrating by 0.2 along +x."""
    add_cube("A", 0.0)
    add_cube("B", 0.8)
    select_only(bpy.data.objects["A"], bpy.data.objects["B"])
    assert analyse('SELECTED') == [("A", "B", 'penetrating')]


def test_resolve_moves_b_out_of_a_convex_pair(empty_scene):
    overlapping_cubes()
    assert bpy.ops.collision_inspector.resolve(index=0) == {'FINISHED'}
    assert bpy.data.objects["B"].location.x == pytest.approx(1.0, abs=1e-6)
    pair = result("A", "B")
    assert pair.status == 'touching' and not pair.stale


def test_resolve_with_clearance_leaves_that_gap(empty_scene):
    overlapping_cubes()
    assert bpy.ops.collision_inspector.resolve(index=0, clearance=0.1) == {'FINISHED'}
    pair = result("A", "B")
    assert pair.status == 'separated' and pair.distance == pytest.approx(0.1, abs=1e-6)


def test_resolve_and_resolve_all_are_undoable(empty_scene):
    """The operator is registered for undo (Blender's undo stack restores the location)."""
    for operator in (bpy.types.COLLISION_INSPECTOR_OT_resolve, bpy.types.COLLISION_INSPECTOR_OT_resolve_all):
        assert {"REGISTER", "UNDO"} <= operator.bl_options


def test_a_parented_b_moves_in_world_space(empty_scene):
    overlapping_cubes()
    parent = bpy.data.objects.new("Parent", None)
    empty_scene.collection.objects.link(parent)
    parent.location = (0.3, 2.0, 0.0)
    parent.rotation_euler.z = math.pi / 2
    parent.scale = (2.0, 2.0, 2.0)
    b = bpy.data.objects["B"]
    bpy.context.view_layer.update()
    world = b.matrix_world.copy()
    b.parent = parent
    b.matrix_parent_inverse = parent.matrix_world.inverted()
    b.matrix_world = world
    bpy.context.view_layer.update()
    assert tuple(b.matrix_world.translation) == pytest.approx((0.8, 0.0, 0.0), abs=1e-6)
    assert bpy.ops.collision_inspector.resolve(index=0) == {'FINISHED'}
    assert tuple(b.matrix_world.translation) == pytest.approx((1.0, 0.0, 0.0), abs=1e-6)
    assert result("A", "B").status == 'touching'


def test_a_non_convex_pair_ends_touching_or_apart(empty_scene):
    a = bpy.data.objects.new("A", l_shape("L"))
    empty_scene.collection.objects.link(a)
    b = add_cube("B", 1.0)
    b.location.z = 0.8  # 0.2 into the L's foot, against its upright
    select_only(a, b)
    assert analyse('SELECTED') == [("A", "B", 'penetrating')]
    assert result("A", "B").method == 'mesh'
    assert bpy.ops.collision_inspector.resolve(index=0) == {'FINISHED'}
    pair = result("A", "B")
    assert pair.status in {'touching', 'separated'}, (pair.status, pair.signed_distance)
    assert pair.signed_distance >= -pair.tolerance


def test_resolve_all_iterates_until_nothing_penetrates(empty_scene):
    """A, B, C in a row each 0.2 into the next: moving B out of A pushes it deeper into C, which moves next."""
    for name, x in (("A", 0.0), ("B", 0.8), ("C", 1.6)):
        add_cube(name, x)
    select_only(*bpy.data.objects)
    analyse('SELECTED')
    assert bpy.ops.collision_inspector.resolve_all() == {'FINISHED'}
    statuses = {(r.name_a, r.name_b): r.status for r in empty_scene.collision_inspector.results}
    assert 'penetrating' not in statuses.values(), statuses
    assert bpy.data.objects["B"].location.x == pytest.approx(1.0, abs=1e-6)
    assert bpy.data.objects["C"].location.x == pytest.approx(2.0, abs=1e-6)


def test_refusals_say_why(empty_scene):
    overlapping_cubes()
    b = bpy.data.objects["B"]
    b.lock_location = (True, True, True)
    with pytest.raises(RuntimeError, match="location is locked"):
        bpy.ops.collision_inspector.resolve(index=0)
    assert b.location.x == pytest.approx(0.8)
    b.lock_location = (False, False, False)
    b.location.x = 3.0
    analyse('SELECTED')
    with pytest.raises(RuntimeError, match="does not penetrate"):
        bpy.ops.collision_inspector.resolve(index=0)
    with pytest.raises(RuntimeError, match="No result 5"):
        bpy.ops.collision_inspector.resolve(index=5)


def test_a_linked_object_is_refused(empty_scene, tmp_path):
    overlapping_cubes()
    library = tmp_path / "library.blend"
    bpy.data.libraries.write(str(library), {bpy.data.objects["B"]})
    bpy.data.objects.remove(bpy.data.objects["B"])
    with bpy.data.libraries.load(str(library), link=True) as (source, target):
        target.objects = ["B"]
    linked = target.objects[0]
    empty_scene.collection.objects.link(linked)
    select_only(bpy.data.objects["A"], linked)
    assert analyse('SELECTED') == [("A", "B", 'penetrating')]
    with pytest.raises(RuntimeError, match="linked from"):
        bpy.ops.collision_inspector.resolve(index=0)
