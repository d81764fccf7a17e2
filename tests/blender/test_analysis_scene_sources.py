"""Which objects a check measures: visible, evaluated objects and collection instances; the rest skipped with a reason.

Each scene is built so that the object in question would clash (a unit cube overlapping "Base" by 0.1 m
along x), so measuring it by mistake, or missing it, changes the report.
"""

import importlib

import bpy
import numpy as np
import pytest

from test_operators_analyse import add_cube  # noqa: I001  (pytest puts tests/blender on sys.path)

EXACT = 1e-6


@pytest.fixture
def clash(addon):
    return importlib.import_module(addon.__name__ + ".analysis.clash")


def check(clash, **options):
    return clash.check_scene(bpy.context.scene, bpy.context.evaluated_depsgraph_get(), scope='ALL', **options)


def clashes(report) -> list:
    return [(r.object_a, r.object_b, r.status) for r in report.results]


def cube_in(collection: bpy.types.Collection, name: str, location) -> bpy.types.Object:
    cube = add_cube(name, location=location)
    for owner in list(cube.users_collection):
        owner.objects.unlink(cube)
    collection.objects.link(cube)
    return cube


def new_collection(name: str) -> bpy.types.Collection:
    collection = bpy.data.collections.new(name)
    bpy.context.scene.collection.children.link(collection)
    return collection


def test_objects_of_excluded_collections_are_skipped(empty_scene, clash):
    add_cube("Base")
    cube_in(new_collection("Excluded"), "Ghost", (0.9, 0.0, 0.0))
    assert clashes(check(clash)) == [("Base", "Ghost", 'penetrating')]
    bpy.context.view_layer.layer_collection.children["Excluded"].exclude = True
    report = check(clash)
    assert clashes(report) == []
    assert "excluded" in report.skipped["Ghost"]


def test_hidden_and_viewport_disabled_objects_are_skipped(empty_scene, clash):
    add_cube("Base")
    disabled = new_collection("Disabled")
    cube_in(disabled, "Ghost", (0.9, 0.0, 0.0))
    disabled.hide_viewport = True
    hidden = add_cube("Hidden", location=(-0.9, 0.0, 0.0))
    hidden.hide_set(True)
    report = check(clash)
    assert clashes(report) == []
    assert set(report.skipped) == {"Ghost", "Hidden"}


def test_collection_instances_are_measured_with_their_instance_transform(empty_scene, clash):
    add_cube("Base")
    part = new_collection("Part")
    cube_in(part, "Peg", (0.0, 0.0, 0.0))
    bpy.context.view_layer.layer_collection.children["Part"].exclude = True  # the usual library setup
    instancer = bpy.data.objects.new("Rack", None)
    instancer.instance_type = 'COLLECTION'
    instancer.instance_collection = part
    instancer.location = (0.9, 0.0, 0.0)
    bpy.context.scene.collection.objects.link(instancer)
    report = check(clash)
    assert clashes(report) == [("Base", "Rack \u25b8 Peg", 'penetrating')]
    result = report.results[0]
    assert -result.signed_distance == pytest.approx(0.1, abs=EXACT)
    assert result.normal == pytest.approx((1.0, 0.0, 0.0), abs=EXACT)
    assert "Peg" in report.skipped  # the library object itself is not in the view layer


def test_an_instanced_clash_is_stored_against_the_instancer(empty_scene, addon):
    base = add_cube("Base")
    part = new_collection("Part")
    cube_in(part, "Peg", (0.0, 0.0, 0.0))
    bpy.context.view_layer.layer_collection.children["Part"].exclude = True
    instancer = bpy.data.objects.new("Rack", None)
    instancer.instance_type = 'COLLECTION'
    instancer.instance_collection = part
    instancer.location = (0.9, 0.0, 0.0)
    bpy.context.scene.collection.objects.link(instancer)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in (base, instancer))
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    (result,) = bpy.context.scene.collision_inspector.results
    assert (result.name_b, result.object_b, result.status) == ("Rack \u25b8 Peg", instancer, 'penetrating')
    instancer.name = "Shelf"  # reports and reviews follow the instancer's new name, the shown object's too
    store = importlib.import_module(addon.__name__ + ".analysis.store")
    assert store.result_pair(result) == ("Base", "Shelf \u25b8 Peg")
    assert [(r.object_a, r.object_b) for r in store.stored_report(bpy.context.scene).results] == \
        [("Base", "Shelf \u25b8 Peg")]


def test_objects_without_mesh_vertices_do_not_stop_a_whole_scene_check(empty_scene, clash):
    add_cube("Base")
    add_cube("Other", location=(0.9, 0.0, 0.0))
    placeholder = bpy.data.objects.new("Placeholder", bpy.data.meshes.new("Placeholder"))
    bpy.context.scene.collection.objects.link(placeholder)
    scatter = add_cube("Scatter", location=(-0.9, 0.0, 0.0))
    tree = bpy.data.node_groups.new("Nothing", 'GeometryNodeTree')  # a node group that outputs no geometry
    modifier = scatter.modifiers.new("Nodes", 'NODES')
    modifier.node_group = tree
    report = check(clash)
    assert clashes(report) == [("Base", "Other", 'penetrating')]
    assert set(report.skipped) == {"Placeholder", "Scatter"}
    assert all("no mesh vertices" in reason for reason in report.skipped.values())


def test_a_vertex_at_blenders_float_limit_is_skipped_not_measured(empty_scene, clash):
    add_cube("Base")
    stray = add_cube("Stray", location=(0.9, 0.0, 0.0))
    coordinates = np.zeros(len(stray.data.vertices) * 3, dtype=np.float32)
    stray.data.vertices.foreach_get("co", coordinates)
    coordinates[0] = np.finfo(np.float32).max
    stray.data.vertices.foreach_set("co", coordinates)
    stray.data.update()
    report = check(clash)
    assert clashes(report) == []
    assert "non-finite" in report.skipped["Stray"]
