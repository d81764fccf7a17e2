"""What users build their objects with: mirrored (negative-scaled) objects, modifier stacks (Array, Mirror, Solidify,
Boolean, Screw), curves and text, FBX round trips, objects far from the origin and tiny ones.

References are independent of the add-on: analytic answers from each scene's construction, Blender's exact Boolean
modifier for overlap volumes and bmesh for volumes (``test_analysis_real_imports``).
"""

import importlib
import math

import bpy
import numpy as np
import pytest

from test_operators_analyse import add_cube, analyse, only_result, rename  # noqa: I001
from test_analysis_nonconvex import assert_surface_distance
from test_analysis_real_imports import FORMATS, boolean_overlap, round_trip, world_volume


def add_torus(name: str, **transform) -> bpy.types.Object:
    bpy.ops.mesh.primitive_torus_add(major_radius=1.0, minor_radius=0.25)
    return rename(bpy.context.active_object, name, **transform)


@pytest.mark.parametrize("scale", [(-1.0, 1.0, 1.0), (1.0, -2.0, 1.0), (-1.0, -1.0, -1.0)])
def test_a_mirrored_object_is_measured_as_it_looks_with_no_note_about_its_faces(empty_scene, scale):
    torus = add_torus("Torus", scale=scale)  # mirrored by a negative scale: its faces still face outward
    box = add_cube("Box", size=0.4, location=(1.0, 0.0, 0.2))
    result = only_result(box, torus)
    assert result.status == 'penetrating'
    assert result.mesh_note == ""  # nothing in the mesh was turned over: the mirror is the object's transform
    assert result.volume_certainty == 'exact'
    assert result.overlap_volume == pytest.approx(boolean_overlap(torus, box), rel=1e-6)


def uv_ball(name: str, radius: float, location=(0.0, 0.0, 0.0)) -> bpy.types.Object:
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=location, segments=24, ring_count=12)
    return rename(bpy.context.active_object, name)


def solidified_sphere(name: str = "Shell") -> bpy.types.Object:
    """A 1 m sphere given a 0.1 m wall inward by Solidify: a hollow ball, its hollow 0.9 m in radius."""
    shell = uv_ball(name, 1.0)
    solidify = shell.modifiers.new("Solidify", 'SOLIDIFY')
    solidify.thickness, solidify.offset = 0.1, -1.0
    return shell


def test_a_ball_in_the_hollow_of_a_solidified_sphere_is_apart_from_its_wall(empty_scene):
    shell = solidified_sphere()
    inside = uv_ball("Ball", 0.5)
    through = uv_ball("Crossing", 0.3, location=(0.0, 0.9, 0.0))
    results = {(result.name_a, result.name_b): result for result in analyse(shell, inside, through)}
    apart = results["Ball", "Shell"]
    assert apart.status == 'separated' and apart.mesh_note == ""  # the inner wall is no inside-out part
    assert_surface_distance(apart, inside, shell)  # about 0.9 - 0.5, between the ball and the inner wall
    crossing = results["Crossing", "Shell"]
    assert crossing.status == 'penetrating' and crossing.volume_certainty == 'exact'
    assert crossing.overlap_volume == pytest.approx(boolean_overlap(through, shell), rel=1e-6)  # the wall's share
    assert crossing.overlap_volume < 0.5 * world_volume(through)


def node_scatter(name: str, count: int = 3, spacing: float = 2.0, scale=(1.0, 1.0, 1.0), location=(0.0, 0.0, 0.0),
                 keep_mesh: bool = False) -> bpy.types.Object:
    """An object at ``location`` whose Geometry Nodes put a 1 m cube on each of ``count`` points ``spacing`` apart
    along x from it (Mesh Line, Instance on Points), each instance scaled by ``scale``; its own 1 m cube kept
    (Join Geometry) when ``keep_mesh``, else instances only."""
    obj = add_cube(name, location=location)
    tree = bpy.data.node_groups.new(name, 'GeometryNodeTree')
    tree.interface.new_socket("Geometry", in_out='INPUT', socket_type='NodeSocketGeometry')
    tree.interface.new_socket("Geometry", in_out='OUTPUT', socket_type='NodeSocketGeometry')
    line, on_points = tree.nodes.new("GeometryNodeMeshLine"), tree.nodes.new("GeometryNodeInstanceOnPoints")
    line.inputs["Count"].default_value, line.inputs["Offset"].default_value = count, (spacing, 0.0, 0.0)
    on_points.inputs["Scale"].default_value = scale
    tree.links.new(line.outputs[0], on_points.inputs["Points"])
    tree.links.new(tree.nodes.new("GeometryNodeMeshCube").outputs[0], on_points.inputs["Instance"])
    output = tree.nodes.new("NodeGroupOutput").inputs[0]
    if keep_mesh:
        join = tree.nodes.new("GeometryNodeJoinGeometry")
        tree.links.new(tree.nodes.new("NodeGroupInput").outputs[0], join.inputs[0])
        tree.links.new(on_points.outputs[0], join.inputs[0])
        tree.links.new(join.outputs[0], output)
    else:
        tree.links.new(on_points.outputs[0], output)
    obj.modifiers.new("Scatter", 'NODES').node_group = tree
    return obj


@pytest.mark.parametrize("scale", [(1.0, 1.0, 1.0), (-1.0, 1.0, 1.0)])
def test_a_scatter_of_geometry_nodes_instances_is_measured_as_the_viewport_shows_it(empty_scene, scale):
    scatter = node_scatter("Scatter", scale=scale)  # cubes centred at x = 0, 2, 4
    probe = add_cube("Probe", size=0.5, location=(4.0, 0.0, 0.6))  # sinks 0.15 into the third cube's top
    result = only_result(probe, scatter)
    assert result.status == 'penetrating' and result.mesh_note == ""
    assert result.depth == pytest.approx(0.15, abs=1e-6)
    assert result.overlap_volume == pytest.approx(0.5 * 0.5 * 0.15, rel=1e-6)
    probe.location = (3.0, 0.0, 0.0)  # between the second and third cubes: 0.25 m from each
    result = only_result(probe, scatter)
    assert result.status == 'separated' and result.distance == pytest.approx(0.25, abs=1e-6)


def answers(*objects: bpy.types.Object) -> list:
    return [(result.name_a, result.name_b, result.status, result.signed_distance, result.overlap_volume,
             result.volume_certainty, result.method, result.mesh_note) for result in analyse(*objects)]


@pytest.mark.parametrize("kind, unit_scale", [(kind, scale) for kind in sorted(FORMATS) if kind.startswith("fbx")
                                              for scale in (1.0, 0.01) if kind == "fbx" or scale == 1.0])
@pytest.mark.parametrize("shading", ["flat", "smooth"])
def test_an_fbx_round_trip_gives_the_original_answers(empty_scene, kind, unit_scale, shading):
    """Blender's FBX exporter and importer (the C++ one scales objects by the unit scale, so it is taken at 1 only):
    a rotated crate holding a cube and crossed by a ball, smooth or flat shaded, answers as before the trip."""
    empty_scene.unit_settings.scale_length = unit_scale
    crate = add_cube("Crate", size=2.0, location=(0.3, -0.2, 0.5), rotation_euler=(0.2, 0.1, 0.4))
    inner = add_cube("Inner", size=0.5, location=(0.5, 0.0, 0.5))
    ball = uv_ball("Ball", 0.5, location=(1.9, -0.2, 0.5))
    for obj in (crate, ball):
        obj.data.shade_smooth() if shading == "smooth" else obj.data.shade_flat()
    before = answers(crate, inner, ball)
    after = answers(round_trip(crate, kind), inner, round_trip(ball, kind))
    assert [row[:3] for row in after] == [row[:3] for row in before]
    assert [row[5:] for row in after] == [row[5:] for row in before]
    # the importer makes each matrix again from location, rotation and scale: float32 roundings of the corners move
    for (*_, distance, volume, _certainty, _method, _note), expected in zip(after, before):
        assert distance == pytest.approx(expected[3], abs=1e-6)
        assert volume == pytest.approx(expected[4], rel=1e-5, abs=1e-12)


def test_array_copies_that_overlap_count_their_shared_space_once(empty_scene):
    """Array with Merge off: three 1 m cubes half a cube apart, one object x in [-0.5, 1.5] (2 m³, not 3); a cube at
    x = 1.2 shares x in [0.7, 1.5] with it: 0.8 m³ (counted per copy it would be 1.1)."""
    row = add_cube("A")
    array = row.modifiers.new("Array", 'ARRAY')
    array.count, array.relative_offset_displace, array.use_merge_vertices = 3, (0.5, 0.0, 0.0), False
    result = only_result(row, add_cube("B", location=(1.2, 0.0, 0.0)))
    assert result.status == 'penetrating' and result.volume_certainty == 'exact'
    assert result.overlap_volume == pytest.approx(0.8, rel=1e-6)  # float32 vertices
    assert result.depth == pytest.approx(0.8, abs=1e-6)  # out along +x, past the last copy


def test_mirror_without_clipping_overlaps_itself_and_counts_it_once(empty_scene):
    """A cube 0.3 m off the mirror plane, mirrored on x with neither clipping nor merging: halves x in [-0.8, 0.2] and
    [-0.2, 0.8]; a cube above sinking 0.1 m into them shares 1 x 1 x 0.1 m (0.14 if the overlap counted twice)."""
    mirrored = add_cube("A")
    for vertex in mirrored.data.vertices:
        vertex.co.x += 0.3
    mirror = mirrored.modifiers.new("Mirror", 'MIRROR')
    mirror.use_clip, mirror.use_mirror_merge = False, False
    result = only_result(mirrored, add_cube("B", location=(0.0, 0.0, 0.9)))
    assert result.status == 'penetrating' and result.mesh_note == ""
    assert result.overlap_volume == pytest.approx(0.1, rel=1e-6)  # float32 vertices
    assert result.depth == pytest.approx(0.1, abs=1e-6)


def test_a_lathed_ring_made_by_screw_lets_a_rod_through_its_hole(empty_scene):
    """Screw turns a 16-gon profile (radius 0.2, 1 m from the axis) all the way round: a ring whose seam repeats
    vertices; a 0.5 m rod through its hole is apart from it (about 0.3 m, the ring's inner side)."""
    bpy.ops.mesh.primitive_circle_add(radius=0.2, vertices=16, rotation=(math.pi / 2, 0.0, 0.0))
    ring = rename(bpy.context.active_object, "Ring")
    bpy.ops.object.transform_apply(location=False, rotation=True, scale=False)
    for vertex in ring.data.vertices:
        vertex.co.x += 1.0
    screw = ring.modifiers.new("Screw", 'SCREW')
    screw.steps = screw.render_steps = 32
    screw.screw_offset, screw.angle = 0.0, 2.0 * math.pi
    bpy.ops.mesh.primitive_cylinder_add(radius=0.5, depth=2.0, vertices=32)
    rod = rename(bpy.context.active_object, "Rod")
    result = only_result(ring, rod)
    assert result.status == 'separated' and result.volume_certainty == 'exact'
    assert_surface_distance(result, ring, rod)


def test_a_text_object_is_measured_as_its_mesh(empty_scene):
    """Extruded text against a box across its letters: the same answers as the text converted to a mesh."""
    bpy.ops.object.text_add()
    text = rename(bpy.context.active_object, "Text")
    text.data.body, text.data.extrude = "HOLA", 0.1
    box = add_cube("Box", size=0.5, location=(0.5, 0.35, 0.0))
    before = answers(box, text)
    assert before[0][2] == 'penetrating' and before[0][4] > 0.0
    bpy.ops.object.select_all(action='DESELECT')
    text.select_set(True)
    bpy.context.view_layer.objects.active = text
    assert bpy.ops.object.convert(target='MESH') == {'FINISHED'}
    converted = bpy.data.objects["Text"]
    assert converted.type == 'MESH'
    assert converted.data.polygons and converted.location.length == 0.0
    after = answers(box, converted)
    assert after[0][:3] == before[0][:3] and after[0][5:] == before[0][5:]
    assert after[0][3] == pytest.approx(before[0][3], abs=1e-9)
    assert after[0][4] == pytest.approx(before[0][4], rel=1e-9)


def test_a_whole_scene_check_measures_geometry_nodes_instances_with_their_objects_own_mesh(empty_scene):
    """Scope All Objects reads small objects together: a scatter that keeps its own cube (x = 10) and instances three
    more at x = 10, 12, 14 (the first inside its own) is measured whole; a probe sinks 0.15 into the last one."""
    empty_scene.collision_inspector.scope = 'ALL'
    scatter = node_scatter("Scatter", location=(10.0, 0.0, 0.0), keep_mesh=True)
    add_cube("Probe", size=0.5, location=(14.0, 0.0, 0.6))
    for k in range(4):  # small objects around, read in the same batch
        add_cube(f"Other {k}", size=0.5, location=(20.0 + 2.0 * k, 0.0, 0.0))
    results = analyse(scatter)
    assert [(result.name_a, result.name_b, result.status) for result in results] == [
        ("Probe", "Scatter", 'penetrating')]
    assert results[0].depth == pytest.approx(0.15, abs=1e-6)
    assert results[0].overlap_volume == pytest.approx(0.5 * 0.5 * 0.15, rel=1e-6)


@pytest.mark.parametrize("probe_name", ["Probe", "A Probe"])  # the scatter as B, then as A
def test_the_overlap_object_of_a_scatter_is_what_its_instances_share(empty_scene, addon, probe_name):
    """Blender's Boolean sees an object's mesh alone: the scatter takes part as its realized mesh, so the overlap
    object (and the overlay's overlap solid, made the same way) holds the 0.0375 m³ the result measured."""
    overlap_object = importlib.import_module(addon.__name__ + ".analysis.overlap_object")
    scatter = node_scatter("Scatter", keep_mesh=probe_name == "A Probe")
    probe = add_cube(probe_name, size=0.5, location=(4.0, 0.0, 0.6))
    result = only_result(probe, scatter)
    assert result.overlap_volume == pytest.approx(0.0375, rel=1e-6)
    meshes, objects = len(bpy.data.meshes), len(bpy.data.objects)
    shared = overlap_object.overlap_mesh(bpy.context, result)
    assert (len(bpy.data.meshes), len(bpy.data.objects)) == (meshes, objects)  # nothing left behind
    corners = shared.points[shared.triangles]
    volume = np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])).sum() / 6.0
    assert volume == pytest.approx(result.overlap_volume, rel=1e-6)
    assert bpy.ops.collision_inspector.make_overlap_object(index=0) == {'FINISHED'}
    assert len(bpy.data.objects) == objects + 1


def test_the_children_a_vertex_instancer_places_are_part_of_it(empty_scene):
    """Instancing on vertices: a 2 m cube shows its child, a 0.2 m ball, at each of its corners; a probe whose bottom
    is at z = 1.05 over the corner (1, 1, 1) sinks 0.15 into that ball's top, and is apart from the cube itself."""
    emitter = add_cube("Emitter", size=2.0)
    emitter.instance_type = 'VERTS'
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.2)
    rename(bpy.context.active_object, "Child").parent = emitter
    probe = add_cube("Probe", size=0.5, location=(1.0, 1.0, 1.3))
    result = only_result(emitter, probe)
    assert result.status == 'penetrating'
    assert result.depth == pytest.approx(0.15, abs=1e-6)
