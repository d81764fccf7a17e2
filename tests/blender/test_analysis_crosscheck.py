"""The panel's SAT cross-check: an independent separating-axis test flags a result GJK/EPA got wrong."""

import bpy
import pytest

from test_operators_analyse import add_cube, only_result, rename  # noqa: I001  (pytest puts tests/blender on sys.path)


def test_sat_agrees_with_an_analysed_convex_pair(empty_scene):
    result = only_result(add_cube("A"), add_cube("B", location=(0.9, 0.2, 0.0), rotation_euler=(0.0, 0.0, 0.3)))
    assert bpy.ops.collision_inspector.cross_check() == {'FINISHED'}
    assert result.cross_check == "agrees"


@pytest.mark.parametrize("tampered, quantity", [(-0.3, "depth"), (0.2, "contact says separated")])
def test_sat_flags_a_wrong_answer(empty_scene, tampered, quantity):
    result = only_result(add_cube("A"), add_cube("B", location=(0.9, 0.0, 0.0)))  # truly 0.1 deep
    result.signed_distance = tampered
    if tampered > 0:
        result.status = 'separated'
    assert bpy.ops.collision_inspector.cross_check() == {'FINISHED'}
    assert result.cross_check != "agrees"
    assert quantity in result.cross_check or "penetration depth" in result.cross_check


def test_non_convex_pairs_are_refused_with_a_reason(empty_scene):
    bpy.ops.mesh.primitive_torus_add()
    ring = rename(bpy.context.active_object, "Ring")
    only_result(ring, add_cube("Core", size=0.5))
    with pytest.raises(RuntimeError, match="SAT checks convex pairs"):
        bpy.ops.collision_inspector.cross_check()
