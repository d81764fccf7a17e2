"""Non-convex objects are measured on their real surfaces: everyday scenes with known answers.

References are independent of the add-on: analytic answers from each scene's construction, and
Blender's own ``mathutils.bvhtree.BVHTree`` (nearest surface points from every vertex give an upper
bound on the surface distance that is tight on fine meshes). Objects are built from bmesh primitives and
Blender's exact Boolean modifier, so the evaluated geometry path (modifiers) is exercised too.
"""

import math

import bmesh
import bpy
import numpy as np
import pytest
from mathutils.bvhtree import BVHTree

from test_operators_analyse import add_cube, analyse, assert_contact_conventions, only_result, rename  # noqa: I001

EXACT = 1e-6


def cylinder(name: str, radius: float, depth: float, location=(0.0, 0.0, 0.0), vertices: int = 32,
             rotation=(0.0, 0.0, 0.0)) -> bpy.types.Object:
    bpy.ops.mesh.primitive_cylinder_add(vertices=vertices, radius=radius, depth=depth, location=location,
                                        rotation=rotation)
    return rename(bpy.context.active_object, name)


def torus(name: str, location=(0.0, 0.0, 0.0), rotation=(0.0, 0.0, 0.0), major: float = 1.0,
          minor: float = 0.25) -> bpy.types.Object:
    bpy.ops.mesh.primitive_torus_add(major_radius=major, minor_radius=minor, location=location, rotation=rotation,
                                     major_segments=48, minor_segments=16)
    return rename(bpy.context.active_object, name)


def cut(target: bpy.types.Object, cutter: bpy.types.Object) -> bpy.types.Object:
    """Subtract ``cutter`` from ``target`` with the exact Boolean modifier; the cutter is hidden."""
    modifier = target.modifiers.new("Cut", 'BOOLEAN')
    modifier.operation = 'DIFFERENCE'
    modifier.solver = 'EXACT'
    modifier.object = cutter
    cutter.hide_set(True)
    bpy.context.view_layer.update()
    return target


def world_surface(obj: bpy.types.Object) -> tuple[np.ndarray, BVHTree]:
    """World-space vertices of the evaluated object and a BVH tree of its evaluated surface."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    bm = bmesh.new()
    bm.from_object(obj, depsgraph)
    bm.transform(evaluated.matrix_world)
    points = np.array([v.co[:] for v in bm.verts])
    tree = BVHTree.FromBMesh(bm)
    bm.free()
    return points, tree


def vertex_distance_bound(a: bpy.types.Object, b: bpy.types.Object) -> float:
    """min over every vertex of either object of its distance to the other's surface (>= the true distance)."""
    (points_a, tree_a), (points_b, tree_b) = world_surface(a), world_surface(b)
    return min(min(tree_b.find_nearest(p)[3] for p in points_a), min(tree_a.find_nearest(p)[3] for p in points_b))


def assert_surface_distance(result, a, b) -> None:
    """The gap matches Blender's own nearest-surface queries and the witness points lie on the surfaces."""
    bound = vertex_distance_bound(a, b)
    assert result.distance <= bound + EXACT
    assert result.distance >= 0.9 * bound  # fine meshes: vertices come close to the closest points
    for point, obj in ((result.point_a, a), (result.point_b, b)):
        assert world_surface(obj)[1].find_nearest(point)[3] == pytest.approx(0.0, abs=EXACT)


def drilled_block() -> bpy.types.Object:
    """A 2 m block with a 0.3 m hole (a 32-gon) drilled through it along z by the exact Boolean modifier."""
    block = add_cube("Block", size=2.0)
    return cut(block, cylinder("Drill", radius=0.3, depth=3.0))


def test_bolt_in_a_clearance_hole_is_apart_by_the_polygon_gap(empty_scene):
    block = drilled_block()
    bolt = cylinder("Bolt", radius=0.25, depth=3.0)
    result = only_result(block, bolt)
    assert (result.status, result.method) == ('separated', 'mesh')
    # Aligned regular 32-gons: their parallel sides are (R - r) cos(pi / 32) apart.
    assert result.distance == pytest.approx(0.05 * math.cos(math.pi / 32), abs=EXACT)
    assert_contact_conventions(result)


def test_bolt_wider_than_its_hole_penetrates_with_the_wall_volume(empty_scene):
    block = drilled_block()
    bolt = cylinder("Bolt", radius=0.35, depth=2.0)
    result = only_result(block, bolt)
    assert (result.status, result.method) == ('penetrating', 'mesh')
    area = 16 * math.sin(2 * math.pi / 32)  # a regular 32-gon's area per unit circumradius squared
    assert result.overlap_volume == pytest.approx(area * (0.35**2 - 0.3**2) * 2.0, rel=1e-6)
    assert result.depth >= result.depth_lower_bound > 0.0
    assert_contact_conventions(result)


def test_rod_through_a_torus_hole_is_apart(empty_scene):
    ring = torus("Ring")
    rod = cylinder("Rod", radius=0.1, depth=3.0, vertices=16)
    result = only_result(ring, rod)
    assert (result.status, result.method) == ('separated', 'mesh')
    assert_surface_distance(result, ring, rod)


def test_interlocked_chain_links_are_apart(empty_scene):
    first = torus("Link 1")
    second = torus("Link 2", location=(1.0, 0.0, 0.0), rotation=(math.pi / 2, 0.0, 0.0))
    result = only_result(first, second)
    assert (result.status, result.method) == ('separated', 'mesh')
    assert_surface_distance(result, first, second)


def test_block_in_an_l_brackets_inner_corner(empty_scene):
    bracket = add_cube("Bracket", size=2.0)
    cut(bracket, add_cube("Notch", location=(1.0, 0.0, 1.0), size=2.0, scale=(1.0, 1.5, 1.0)))
    block = add_cube("Block", location=(0.6, 0.0, 0.6), size=0.8)  # 0.2 from both inner faces
    result = only_result(block, bracket)
    assert (result.status, result.method) == ('separated', 'mesh')
    assert result.distance == pytest.approx(0.2, abs=EXACT)
    block.location.x = 0.3  # now 0.1 into the upright wall
    result = only_result(block, bracket)
    assert result.status == 'penetrating'
    assert result.overlap_volume == pytest.approx(0.1 * 0.8 * 0.8, rel=1e-6)
    assert result.depth == pytest.approx(0.1, abs=1e-3)
    assert result.depth_lower_bound <= result.depth + EXACT


def test_ball_in_a_cup_is_apart_and_a_big_ball_cuts_its_rim(empty_scene):
    cup = cylinder("Cup", radius=1.0, depth=2.0)
    cut(cup, cylinder("Cavity", radius=0.8, depth=2.0, location=(0.0, 0.0, 0.2)))
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, location=(0.0, 0.0, 0.0), segments=32, ring_count=16)
    ball = rename(bpy.context.active_object, "Ball")
    result = only_result(ball, cup)
    assert (result.status, result.method) == ('separated', 'mesh')
    assert_surface_distance(result, ball, cup)
    ball.scale = (1.9, 1.9, 1.9)  # radius 0.95: through the cup's wall, still in its hull
    result = only_result(ball, cup)
    assert result.status == 'penetrating'
    assert result.overlap_volume > 0.0


def test_a_box_nested_inside_another_is_penetrating_with_its_own_volume(empty_scene):
    outer = add_cube("Outer", size=2.0)
    inner = add_cube("Inner", location=(0.1, 0.2, -0.1), size=0.5)
    result = only_result(inner, outer)
    assert (result.status, result.method) == ('penetrating', 'convex')
    assert result.overlap_volume == pytest.approx(0.125, rel=1e-9)
    # Inner's lowest y (0.2 - 0.25) must pass Outer's face at y = 1: the shortest way out, 1.05.
    assert result.depth == pytest.approx(1.0 - (0.2 - 0.25), abs=EXACT)


def test_walls_with_door_openings_overlapping_end_to_end(empty_scene):
    walls = []
    for name, x in (("Wall A", 0.0), ("Wall B", 3.8)):
        wall = add_cube(name, location=(x, 0.0, 1.0), size=1.0, scale=(4.0, 0.2, 2.0))
        cut(wall, add_cube(f"Door {name[-1]}", location=(x, 0.0, 0.5), size=1.0, scale=(1.0, 1.0, 1.2)))
        walls.append(wall)
    result = only_result(*walls)
    assert (result.status, result.method) == ('penetrating', 'mesh')
    # Coplanar faces, overlapping 0.2 m end to end: a 0.2 x 0.2 x 2 block is shared.
    assert result.overlap_volume == pytest.approx(0.2 * 0.2 * 2.0, rel=1e-6)
    assert result.depth == pytest.approx(0.2, abs=2e-3)


def test_one_object_of_two_loose_cubes_with_a_ball_between(empty_scene):
    pair = add_cube("Pair", location=(-1.0, 0.0, 0.0), size=1.0)
    other = add_cube("Right", location=(1.0, 0.0, 0.0), size=1.0)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in (pair, other))
    bpy.context.view_layer.objects.active = pair
    bpy.ops.object.join()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.4, segments=32, ring_count=16)
    ball = rename(bpy.context.active_object, "Ball")
    result = only_result(ball, pair)
    assert (result.status, result.method) == ('separated', 'parts')
    assert result.distance == pytest.approx(0.1, abs=EXACT)  # an equator vertex at x = 0.4, the face at 0.5
    assert_contact_conventions(result)


def test_results_say_how_they_were_computed_and_hulls_stay_available(empty_scene):
    ring = torus("Ring")
    core = add_cube("Core", size=0.5)
    assert [r.method for r in analyse(core, ring)] == ['mesh']
    empty_scene.collision_inspector.use_hulls = True
    assert [(r.method, r.status) for r in analyse(core, ring)] == [('hull', 'penetrating')]


def test_a_cube_sunk_into_suzanne_has_its_witness_points_on_the_objects_and_says_what_it_knows(empty_scene, addon):
    """The push-out's points lie on the cube and on Suzanne (Blender's nearest-surface queries), the panel leaves
    out a lower bound that says nothing, and the status's tooltip does not speak of convex hulls."""
    import importlib

    panel = importlib.import_module(addon.__name__ + ".ui.panel")
    cube = add_cube("Cube", location=(0.9, 0.0, 0.0))
    bpy.ops.mesh.primitive_monkey_add()
    monkey = rename(bpy.context.active_object, "Suzanne")
    result = only_result(cube, monkey)
    assert (result.status, result.method) == ('penetrating', 'mesh')
    assert_contact_conventions(result)
    near = result.depth * 2.0 ** -10 + EXACT
    for point, obj in ((result.point_a, cube), (result.point_b, monkey)):
        assert world_surface(obj)[1].find_nearest(point)[3] <= near, obj.name
    result.depth_is_estimate, result.depth_lower_bound = True, 0.0  # what the depth of such a pair often is
    assert "Depth: a checked push-out; a shorter one may exist" in panel.depth_details(result, empty_scene)
    result.depth_lower_bound = 0.05
    assert "Depth: a checked push-out; the shortest is at least 0.05 m" in panel.depth_details(result, empty_scene)
    status = result.bl_rna.properties["status"].enum_items["penetrating"]
    assert "hull" not in status.description
