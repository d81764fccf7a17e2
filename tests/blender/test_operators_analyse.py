"""bpy.ops.collision_inspector.analyze/clear on scenes whose answers are known analytically.

Every expected value comes from the scene's construction (sizes, offsets, rotations), never from a
previous run. Pairs are ordered by object name, so A and B are named to make A the first.
"""

import importlib
import math

import bpy
import numpy as np
import pytest

EXACT = 1e-6  # metres; GJK/EPA on these small polytopes converge far below this


def add_cube(name: str, location=(0.0, 0.0, 0.0), size: float = 1.0, **transform) -> bpy.types.Object:
    """A cube of edge ``size`` at ``location``; ``transform`` sets e.g. rotation_euler or scale."""
    bpy.ops.mesh.primitive_cube_add(size=size, location=location)
    return rename(bpy.context.active_object, name, **transform)


def rename(obj: bpy.types.Object, name: str, **transform) -> bpy.types.Object:
    obj.name = name
    for attribute, value in transform.items():
        setattr(obj, attribute, value)
    return obj


def select_only(*objects: bpy.types.Object) -> None:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)
    bpy.context.view_layer.objects.active = objects[0] if objects else None


def analyse(*objects: bpy.types.Object) -> list:
    """Select ``objects``, run the operator, and return the scene's results."""
    select_only(*objects)
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    return list(bpy.context.scene.collision_inspector.results)


def only_result(*objects: bpy.types.Object):
    results = analyse(*objects)
    assert len(results) == 1
    return results[0]


def assert_contact_conventions(result) -> None:
    """point_a - point_b == -signed_distance * normal, and the normal is a unit vector."""
    normal = np.array(result.normal)
    assert np.linalg.norm(normal) == pytest.approx(1.0, abs=1e-6)
    gap = np.array(result.point_a) - np.array(result.point_b)
    np.testing.assert_allclose(gap, -result.signed_distance * normal, atol=1e-6)


def test_unit_cubes_09_apart_penetrate_01_along_x(empty_scene):
    a = add_cube("A")
    b = add_cube("B", location=(0.9, 0.0, 0.0))
    result = only_result(a, b)
    assert (result.object_a, result.object_b) == (a, b)
    assert (result.name_a, result.name_b) == ("A", "B")
    assert result.status == 'penetrating'
    assert result.depth == pytest.approx(0.1, abs=EXACT)
    assert result.signed_distance == pytest.approx(-0.1, abs=EXACT)
    assert result.distance == 0.0
    np.testing.assert_allclose(result.normal, (1.0, 0.0, 0.0), atol=1e-6)
    assert result.point_a[0] == pytest.approx(0.5, abs=EXACT)  # A's +x face
    assert result.point_b[0] == pytest.approx(0.4, abs=EXACT)  # B's -x face
    assert result.tolerance == pytest.approx(empty_scene.collision_inspector.touch_tolerance)
    assert result.hull_note == ""
    assert_contact_conventions(result)


def test_pair_order_follows_names_not_selection(empty_scene):
    b = add_cube("B", location=(0.9, 0.0, 0.0))
    a = add_cube("A")
    result = only_result(b, a)
    assert (result.object_a, result.object_b) == (a, b)
    np.testing.assert_allclose(result.normal, (1.0, 0.0, 0.0), atol=1e-6)


def test_box_standing_on_an_edge_sinks_into_a_box(empty_scene):
    """A unit cube turned 45° about x rests on its lowest edge, sqrt(2)/2 below its centre."""
    base = add_cube("A", size=2.0)  # top face at z = 1
    sink = 0.05
    top = add_cube(
        "B", location=(0.0, 0.0, 1.0 + math.sqrt(0.5) - sink), rotation_euler=(math.radians(45.0), 0.0, 0.0)
    )
    result = only_result(base, top)
    assert result.status == 'penetrating'
    assert result.depth == pytest.approx(sink, abs=EXACT)
    np.testing.assert_allclose(result.normal, (0.0, 0.0, 1.0), atol=1e-6)
    assert result.point_a[2] == pytest.approx(1.0, abs=EXACT)
    assert result.point_b[2] == pytest.approx(1.0 - sink, abs=EXACT)
    assert_contact_conventions(result)


def test_sphere_pole_025_above_a_cube_is_separated_by_025(empty_scene):
    """A UV sphere's lowest point is its pole vertex, so its tessellation does not change the gap."""
    cube = add_cube("A")
    radius = 0.7
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=(0.1, -0.2, 0.5 + 0.25 + radius))
    sphere = rename(bpy.context.active_object, "B")
    result = only_result(cube, sphere)
    assert result.status == 'separated'
    assert result.distance == pytest.approx(0.25, abs=EXACT)
    assert result.signed_distance == pytest.approx(0.25, abs=EXACT)
    assert result.depth == 0.0
    np.testing.assert_allclose(result.normal, (0.0, 0.0, 1.0), atol=1e-6)
    np.testing.assert_allclose(result.point_b, (0.1, -0.2, 0.75), atol=EXACT)
    assert_contact_conventions(result)


@pytest.mark.parametrize("gap", [0.0, 4e-6, -4e-6])
def test_faces_within_the_touch_tolerance_are_touching(empty_scene, gap):
    a = add_cube("A")
    b = add_cube("B", location=(1.0 + gap, 0.0, 0.0))
    result = only_result(a, b)
    assert result.status == 'touching'
    assert abs(result.signed_distance) <= empty_scene.collision_inspector.touch_tolerance
    assert result.signed_distance == pytest.approx(gap, abs=1e-7)


def test_touch_tolerance_setting_decides_touching(empty_scene):
    a = add_cube("A")
    b = add_cube("B", location=(1.001, 0.0, 0.0))
    assert only_result(a, b).status == 'separated'
    empty_scene.collision_inspector.touch_tolerance = 0.002
    result = only_result(a, b)
    assert result.status == 'touching'
    assert result.tolerance == pytest.approx(0.002)


def test_every_pair_of_three_objects_is_analysed_once(empty_scene):
    objects = [add_cube(name, location=(x, 0.0, 0.0)) for name, x in (("C", 1.8), ("A", 0.0), ("B", 0.9))]
    results = analyse(*objects)
    pairs = [(r.name_a, r.name_b, r.status) for r in results]
    assert pairs == [("A", "B", 'penetrating'), ("A", "C", 'separated'), ("B", "C", 'penetrating')]
    assert results[1].distance == pytest.approx(0.8, abs=EXACT)


def test_array_modifier_extends_the_evaluated_geometry(empty_scene):
    a = add_cube("A")
    b = add_cube("B", location=(2.2, 0.0, 0.0))
    assert only_result(a, b).distance == pytest.approx(1.2, abs=EXACT)
    array = a.modifiers.new("Array", 'ARRAY')
    array.count = 2  # relative offset 1 on x: A now spans x in [-0.5, 1.5]
    result = only_result(a, b)
    assert result.status == 'separated'
    assert result.distance == pytest.approx(0.2, abs=EXACT)


def test_solidify_modifier_thickens_a_plane_into_the_other_object(empty_scene):
    bpy.ops.mesh.primitive_plane_add(size=2.0)
    plane = rename(bpy.context.active_object, "A")
    cube = add_cube("B", location=(0.0, 0.0, 0.6))  # bottom face at z = 0.1
    assert only_result(plane, cube).distance == pytest.approx(0.1, abs=EXACT)
    solidify = plane.modifiers.new("Solidify", 'SOLIDIFY')
    solidify.thickness = 0.3
    solidify.offset = 1.0  # grows along the face normal (+z): the plane becomes a slab z in [0, 0.3]
    result = only_result(plane, cube)
    assert result.status == 'penetrating'
    assert result.depth == pytest.approx(0.2, abs=EXACT)
    np.testing.assert_allclose(result.normal, (0.0, 0.0, 1.0), atol=1e-6)


def test_parent_transform_moves_and_scales_the_child(empty_scene):
    a = add_cube("A")
    b = add_cube("B", location=(1.0, 0.0, 0.0))
    assert only_result(a, b).status == 'touching'
    bpy.ops.object.empty_add(location=(0.5, 0.0, 0.0))
    parent = rename(bpy.context.active_object, "Parent", scale=(2.0, 2.0, 2.0))
    b.parent = parent  # world = parent @ local: B's centre at 0.5 + 2 * 1 = 2.5, half size 1
    result = only_result(a, b)
    assert result.status == 'separated'
    assert result.distance == pytest.approx(1.0, abs=EXACT)


@pytest.mark.parametrize("scale_x", [3.0, -3.0])
def test_non_uniform_and_negative_scale(empty_scene, scale_x):
    stretched = add_cube("A", scale=(scale_x, 1.0, 0.5))  # x in [-1.5, 1.5], z in [-0.25, 0.25]
    along_x = add_cube("B", location=(1.9, 0.0, 0.0))
    above = add_cube("C", location=(0.0, 0.0, 0.7))
    ab, ac, _bc = analyse(stretched, along_x, above)
    assert ab.status == 'penetrating'
    assert ab.depth == pytest.approx(0.1, abs=EXACT)
    np.testing.assert_allclose(ab.normal, (1.0, 0.0, 0.0), atol=1e-6)
    assert ac.status == 'penetrating'
    assert ac.depth == pytest.approx(0.05, abs=EXACT)
    np.testing.assert_allclose(ac.normal, (0.0, 0.0, 1.0), atol=1e-6)


def test_text_object_is_analysed_through_its_mesh(empty_scene):
    bpy.ops.object.text_add()
    text = rename(bpy.context.active_object, "A")
    text.data.extrude = 0.1  # text lies in z = 0 and is extruded to z in [-0.1, 0.1]
    cube = add_cube("B", location=(0.3, 0.2, 0.55))  # bottom face at z = 0.05
    result = only_result(text, cube)
    assert result.status == 'penetrating'
    assert result.depth == pytest.approx(0.05, abs=EXACT)


@pytest.mark.parametrize(
    "add_object",
    [
        lambda: bpy.ops.surface.primitive_nurbs_surface_sphere_add(radius=1.0),
        lambda: bpy.ops.object.metaball_add(type='BALL', radius=1.0),
        lambda: bpy.ops.curve.primitive_bezier_curve_add(radius=1.0),  # no bevel: a polyline, still a hull
    ],
    ids=["nurbs surface", "metaball", "curve"],
)
def test_surfaces_metaballs_and_curves_are_measured_through_their_evaluated_mesh(empty_scene, addon, add_object):
    add_object()
    shape = rename(bpy.context.active_object, "A")
    wall = add_cube("B", location=(20.0, 0.0, 0.0), size=10.0)  # its -x face x = 15 covers the shape
    geometry = importlib.import_module(addon.__name__ + ".analysis.geometry")
    with geometry.evaluated_mesh(shape, bpy.context.evaluated_depsgraph_get()) as (mesh, matrix):
        points = geometry.world_points(mesh, matrix)
    assert len(points) > 4
    result = only_result(shape, wall)
    assert result.status == 'separated'
    assert result.distance == pytest.approx(15.0 - points[:, 0].max(), abs=EXACT)


def test_a_cube_in_a_torus_hole_is_apart_and_its_hull_answer_only_on_request(empty_scene):
    bpy.ops.mesh.primitive_torus_add(major_radius=1.0, minor_radius=0.25)
    torus = rename(bpy.context.active_object, "A")
    cube = add_cube("B", size=0.5)  # in the hole: the meshes do not touch, the hulls do
    result = only_result(torus, cube)
    assert (result.status, result.method) == ('separated', 'mesh')
    # The hole's rim is at least 0.75 * cos(pi / 12) from the axis; the cube reaches 0.25 * sqrt(2).
    assert 0.75 * math.cos(math.pi / 12) - 0.25 * math.sqrt(2) < result.distance < 0.5
    assert result.hull_note == ""
    empty_scene.collision_inspector.use_hulls = True
    result = only_result(torus, cube)
    assert (result.status, result.method) == ('penetrating', 'hull')
    assert "A is not convex" in result.hull_note and "B" not in result.hull_note


def test_deleted_and_renamed_objects_keep_their_results(empty_scene):
    a = add_cube("A")
    b = add_cube("B", location=(0.9, 0.0, 0.0))
    analyse(a, b)
    a.name = "Renamed"
    result = empty_scene.collision_inspector.results[0]
    assert result.label == "Renamed \u2194 B"
    bpy.data.objects.remove(b)
    assert result.object_b is None
    assert result.label == "Renamed \u2194 B"
    assert result.depth == pytest.approx(0.1, abs=EXACT)


# --- bad selections and bad geometry -------------------------------------------------------------------


def poll_refusal(operator) -> str:
    """The message of the RuntimeError bpy.ops raises when ``operator``'s poll fails."""
    assert not operator.poll()
    with pytest.raises(RuntimeError) as refusal:
        operator()
    return str(refusal.value)


def test_analyse_needs_two_objects_with_geometry(empty_scene):
    cube = add_cube("A")
    bpy.ops.object.empty_add()
    empty = bpy.context.active_object
    bpy.ops.object.camera_add()
    camera = bpy.context.active_object
    for selection in [(), (cube,), (cube, empty), (empty, camera)]:
        select_only(*selection)
        message = poll_refusal(bpy.ops.collision_inspector.analyze)
        assert "Select at least two objects with geometry" in message
        assert f"{sum(obj is cube for obj in selection)} selected" in message
    select_only(cube, add_cube("B", location=(3.0, 0.0, 0.0)), empty, camera)
    assert bpy.ops.collision_inspector.analyze.poll()
    assert len(analyse(*bpy.context.selected_objects)) == 1


def assert_skipped(selection, measured: list) -> None:
    """Analysing ``selection`` finishes and measures exactly the pairs ``measured``: the rest was skipped."""
    assert [(r.name_a, r.name_b) for r in analyse(*selection)] == measured


def test_object_without_vertices_is_skipped_and_the_others_measured(empty_scene):
    a = add_cube("A")
    b = add_cube("B", location=(0.9, 0.0, 0.0))
    hollow = bpy.data.objects.new("Hollow", bpy.data.meshes.new("Hollow"))
    empty_scene.collection.objects.link(hollow)
    assert_skipped((a, b, hollow), [("A", "B")])
    assert empty_scene.collision_inspector.results[0].depth == pytest.approx(0.1, abs=EXACT)


def test_non_finite_coordinates_are_skipped(empty_scene):
    a = add_cube("A")
    b = add_cube("B", location=(0.9, 0.0, 0.0))
    broken = add_cube("Broken", location=(3.0, 0.0, 0.0))
    coordinates = np.zeros(len(broken.data.vertices) * 3, dtype=np.float32)
    broken.data.vertices.foreach_get("co", coordinates)
    for bad in (np.nan, np.finfo(np.float32).max):  # Blender stores infinity as its float limit
        coordinates[4] = bad
        broken.data.vertices.foreach_set("co", coordinates)
        broken.data.update()
        assert_skipped((a, b, broken), [("A", "B")])
    coordinates[4] = 0.0
    broken.data.vertices.foreach_set("co", coordinates)
    broken.data.update()
    broken.location.x = math.nan  # finite mesh, non-finite world transform
    assert_skipped((a, b, broken), [("A", "B")])


# --- clear and undo -----------------------------------------------------------------------------------


def test_clear_removes_results_and_then_refuses(empty_scene):
    analyse(add_cube("A"), add_cube("B", location=(0.9, 0.0, 0.0)))
    assert bpy.ops.collision_inspector.clear() == {'FINISHED'}
    assert len(empty_scene.collision_inspector.results) == 0
    assert "No results to clear" in poll_refusal(bpy.ops.collision_inspector.clear)


def run_as_undo_step(operator) -> None:
    """Run ``operator`` as the interface does: with an undo step pushed after it."""
    assert operator('EXEC_DEFAULT', True) == {'FINISHED'}


def current_results() -> list:
    return [(r.name_a, r.name_b, r.status) for r in bpy.context.scene.collision_inspector.results]


def test_undo_restores_the_results_before_analyse_and_clear(empty_scene):
    a = add_cube("A")
    b = add_cube("B", location=(0.9, 0.0, 0.0))
    analyse(a, b)
    bpy.ops.ed.undo_push(message="penetrating results")
    bpy.data.objects["B"].location.x = 3.0
    run_as_undo_step(bpy.ops.collision_inspector.analyze)
    assert current_results() == [("A", "B", 'separated')]
    bpy.ops.ed.undo()
    assert current_results() == [("A", "B", 'penetrating')]
    run_as_undo_step(bpy.ops.collision_inspector.clear)
    assert current_results() == []
    bpy.ops.ed.undo()
    assert current_results() == [("A", "B", 'penetrating')]


def test_results_read_back_at_float64_far_from_the_origin(empty_scene):
    a = add_cube("A", location=(2e5, 0.0, 0.0))
    b = add_cube("B", location=(2e5 + 0.9, 0.0, 0.0))
    result = only_result(a, b)
    x_a, x_b = a.matrix_world.translation.x, b.matrix_world.translation.x  # as Blender stores them
    # The contact patch's centre on A's +x face and on B's -x face; float32 would be off by ~8 mm here.
    assert result.point_a == pytest.approx((x_a + 0.5, 0.0, 0.0), abs=1e-9)
    assert result.point_b == pytest.approx((x_b - 0.5, 0.0, 0.0), abs=1e-9)
    assert result.depth == pytest.approx(1.0 - (x_b - x_a), abs=1e-9)
    assert isinstance(result.signed_distance, float) and result.signed_distance == -result.depth
    result.signed_distance = -0.25  # writing keeps the float32 copy the overlay draws in step
    assert (result.depth, result.signed_distance_view) == (0.25, -0.25)


def test_results_saved_with_fewer_exact_numbers_read_the_new_ones_as_zero(empty_scene, addon):
    """A result saved by an earlier release keeps 13 float64 numbers (no distance bound): read, the missing numbers
    are 0; written, the list grows and the old numbers stay."""
    result = only_result(add_cube("A"), add_cube("B", location=(3.0, 0.0, 0.0)))
    result["exact"] = list(result["exact"])[:13]
    assert result.distance_lower_bound == 0.0 and result.distance == pytest.approx(2.0, abs=1e-9)
    assert result.volume_error == 0.0
    result.distance_lower_bound = 1.5
    size = importlib.import_module(addon.__name__ + ".analysis.exact_numbers").EXACT_SIZE
    assert len(result["exact"]) == size and result.distance_lower_bound == 1.5
    assert result.distance == pytest.approx(2.0, abs=1e-9)
