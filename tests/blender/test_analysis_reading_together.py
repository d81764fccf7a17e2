"""A check reads consecutive small objects together (``analysis.clash._read_together``, ``shapes.meshes_from_many``):
the same triangles, coordinates, skipped objects and answers, bit for bit, as reading each object on its own."""

from __future__ import annotations

import dataclasses
import importlib

import bmesh
import bpy
import numpy as np
import pytest


@pytest.fixture
def clash(addon):
    return importlib.import_module(addon.__name__ + ".analysis.clash")


@pytest.fixture
def shapes(addon):
    return importlib.import_module(addon.__name__ + ".analysis.shapes")


def convex_mesh(kind: str) -> bpy.types.Mesh:
    """A cube, an ico sphere, a cylinder (two 12-gon caps, split by Blender) or a UV sphere, about 1 m across."""
    bm = bmesh.new()
    if kind == "cube":
        bmesh.ops.create_cube(bm, size=1.0)
    elif kind == "ico":
        bmesh.ops.create_icosphere(bm, subdivisions=1, radius=0.5)
    elif kind == "cylinder":
        bmesh.ops.create_cone(bm, cap_ends=True, segments=12, radius1=0.5, radius2=0.5, depth=1.0)
    else:
        bmesh.ops.create_uvsphere(bm, u_segments=12, v_segments=6, radius=0.5)
    mesh = bpy.data.meshes.new(kind)
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def crowded_scene(rng: np.random.Generator, count: int) -> None:
    """``count`` objects of their own mesh data, turned and scaled at random (some mirrored), close enough that many
    clash; among them objects that cannot be measured (no vertices, a vertex at Blender's float limit) and a point cloud."""
    kinds = ("cube", "ico", "cylinder", "uv")
    for index in range(count):
        obj = bpy.data.objects.new(f"obj {index:03d}", convex_mesh(kinds[index % 4]))
        obj.location = (0.7 * (index % 8), 0.7 * (index // 8), rng.uniform(-0.1, 0.1))
        obj.rotation_euler = rng.uniform(0.0, np.pi, 3)
        obj.scale = rng.uniform(0.6, 1.2, 3) * (-1.0 if index % 5 == 3 else 1.0)  # some mirrored
        bpy.context.scene.collection.objects.link(obj)
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("obj 500 empty", bpy.data.meshes.new("empty")))
    cloud = bpy.data.meshes.new("cloud")
    cloud.from_pydata(rng.normal(size=(20, 3)).tolist(), [], [])
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("obj 501 cloud", cloud))
    stray = bpy.data.objects.new("obj 502 stray", convex_mesh("cube"))
    coordinates = np.zeros(len(stray.data.vertices) * 3, dtype=np.float32)
    stray.data.vertices.foreach_get("co", coordinates)
    coordinates[4] = np.finfo(np.float32).max
    stray.data.vertices.foreach_set("co", coordinates)
    stray.data.update()
    bpy.context.scene.collection.objects.link(stray)
    bpy.context.view_layer.update()


def test_meshes_read_together_are_each_read_alone_bit_for_bit(empty_scene, shapes):
    crowded_scene(np.random.default_rng(11), 40)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    sources = [shapes.Source(obj.name, obj, obj) for obj in sorted(empty_scene.objects, key=lambda o: o.name)]
    reads = [shapes.read_arrays(source, depsgraph) for source in sources]
    together = shapes.meshes_from_many(reads)
    errors = 0
    for read, mesh in zip(reads, together):
        try:
            alone = shapes.mesh_from_arrays(read)
        except shapes.ObjectGeometryError as error:
            assert isinstance(mesh, shapes.ObjectGeometryError) and str(mesh) == str(error)
            errors += 1
            continue
        assert mesh.vertices.tobytes() == alone.vertices.tobytes()
        assert mesh.triangles.tobytes() == alone.triangles.tobytes()
        assert mesh.vertices.shape == alone.vertices.shape and mesh.triangles.shape == alone.triangles.shape
    assert errors == 2  # the empty mesh and the stray vertex
    assert shapes.meshes_from_many([]) == []


def test_faces_split_together_are_each_mesh_split_alone(empty_scene, addon):
    geometry = importlib.import_module(addon.__name__ + ".analysis.geometry")
    rng = np.random.default_rng(6)
    meshes = []
    for segments, rings in ((40, 26), (64, 20), (12, 6), (48, 30)):  # the small one keeps Blender's loop triangles
        bm = bmesh.new()
        bmesh.ops.create_uvsphere(bm, u_segments=segments, v_segments=rings, radius=0.5)
        for vertex in bm.verts:  # quads out of plane: about half of them split along the other diagonal
            vertex.co *= float(rng.uniform(0.9, 1.1))
        mesh = bpy.data.meshes.new("sphere")
        bm.to_mesh(mesh)
        bm.free()
        meshes.append(geometry.mesh_arrays(mesh))
    meshes.insert(2, geometry.mesh_arrays(bpy.data.meshes.new("empty")))
    assert sum(arrays.loop_triangles is None and len(arrays.face_starts) > 0 for arrays in meshes) == 3
    for arrays, together in zip(meshes, geometry.triangles_of_many(meshes)):
        alone = arrays.triangles()
        assert together.dtype == alone.dtype and together.shape == alone.shape
        assert together.tobytes() == alone.tobytes()
    assert geometry.triangles_of_many([]) == []


def steps(progress: list) -> list:
    """The progress calls less repeats (a worker thread's long work repeats the last one as often as it takes)."""
    return [call for k, call in enumerate(progress) if k == 0 or call != progress[k - 1]]


def results(report) -> list[dict]:
    return [dataclasses.asdict(result) for result in report.results]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_check_reading_together_answers_as_reading_each_alone(empty_scene, clash, monkeypatch, seed):
    crowded_scene(np.random.default_rng(seed), 64)
    monkeypatch.setattr(clash, "READ_TOGETHER", 16)  # several batches, the last one short
    progress_together: list = []
    together = clash.check_scene(empty_scene, bpy.context.evaluated_depsgraph_get(), scope="ALL",
                                 progress=lambda done, total: progress_together.append((done, total)))
    monkeypatch.setattr(clash, "may_be_slow_to_read", lambda source: True)  # each read on its own
    progress_alone: list = []
    alone = clash.check_scene(empty_scene, bpy.context.evaluated_depsgraph_get(), scope="ALL",
                              progress=lambda done, total: progress_alone.append((done, total)))
    assert sum(result.status == "penetrating" for result in alone.results) >= 20
    assert repr(results(together)) == repr(results(alone))  # every field, floats to the last bit
    assert together.skipped == alone.skipped and set(alone.skipped) == {"obj 500 empty", "obj 502 stray"}
    assert (together.separated, together.candidate_pairs) == (alone.separated, alone.candidate_pairs)
    assert steps(progress_together) == steps(progress_alone)
    assert [shape[0].name for shape in together.shapes] == [shape[0].name for shape in alone.shapes]
    for kept, reference in zip(together.shapes, alone.shapes):
        assert kept[1].mesh.vertices.tobytes() == reference[1].mesh.vertices.tobytes()
        assert kept[1].mesh.triangles.tobytes() == reference[1].mesh.triangles.tobytes()


def big_sphere(rng: np.random.Generator) -> bpy.types.Mesh:
    """A UV sphere of 40 x 26 faces, its vertices moved apart at random (not convex): more faces than
    ``geometry.SPLIT_MIN_FACES``, whose quads the reading splits itself."""
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=40, v_segments=26, radius=0.5)
    for vertex in bm.verts:
        vertex.co *= float(rng.uniform(0.95, 1.05))
    mesh = bpy.data.meshes.new("big sphere")
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def test_a_check_reads_triangles_only_of_the_objects_its_broad_phase_keeps(empty_scene, clash, addon, monkeypatch):
    """Faces are read only for objects in candidate pairs (those alone are read as vertices and a box), small
    objects' (Blender's loop triangles) and big ones' (faces split by the reading) alike, and the answers are those
    of reading every object whole (``every_pair`` reads every one)."""
    geometry = importlib.import_module(addon.__name__ + ".analysis.geometry")
    rng = np.random.default_rng(5)
    crowded_scene(rng, 24)
    for index in range(6):  # far from everything
        lonely = bpy.data.objects.new(f"lonely {index}", convex_mesh("ico") if index % 2 else big_sphere(rng))
        lonely.location = (40.0 + 3.0 * index, -30.0, 0.0)
        empty_scene.collection.objects.link(lonely)
    for index in range(3):  # near small objects
        near = bpy.data.objects.new(f"big {index}", big_sphere(rng))
        near.location = (0.7 * index + 0.3, 0.35, 0.0)
        empty_scene.collection.objects.link(near)
    bpy.context.view_layer.update()
    assert min(len(bpy.data.objects[f"big {index}"].data.polygons) for index in range(3)) >= geometry.SPLIT_MIN_FACES
    read_from: list = []
    counted, copied = geometry.loop_triangles, geometry._corner_or_point_array

    def counting(mesh):
        read_from.append(mesh.name)
        return counted(mesh)

    def copying(mesh, attribute, *rest):
        if attribute == ".corner_vert":  # a big mesh's faces
            read_from.append(mesh.name)
        return copied(mesh, attribute, *rest)

    monkeypatch.setattr(geometry, "loop_triangles", counting)
    monkeypatch.setattr(geometry, "_corner_or_point_array", copying)
    monkeypatch.setattr(clash, "READ_TOGETHER", 8)  # several steps of reading triangles
    depsgraph = bpy.context.evaluated_depsgraph_get()
    report = clash.check_scene(empty_scene, depsgraph, scope="ALL")
    owners = {obj.data.name: obj.name for obj in empty_scene.objects}
    read_objects = [owners[name] for name in read_from]
    involved = {name for result in report.results for name in (result.object_a, result.object_b)
                if len(bpy.data.objects[name].data.polygons)}  # (the point cloud has none to read)
    assert len(read_objects) == len(set(read_objects))  # each at most once
    assert involved <= set(read_objects) and not any(name.startswith("lonely") for name in read_objects)
    assert {"big 0", "big 1", "big 2"} <= involved
    read_from.clear()
    whole = clash.check_scene(empty_scene, depsgraph, scope="ALL", every_pair=True)  # every object read whole
    assert len(read_from) == len([obj for obj in empty_scene.objects if len(obj.data.polygons)])
    penetrating = [result for result in whole.results if result.status == "penetrating"]
    assert len(penetrating) >= 5
    assert repr([dataclasses.asdict(result) for result in penetrating]) == repr(
        [dataclasses.asdict(result) for result in report.results if result.status == "penetrating"])
    assert report.skipped == whole.skipped and report.objects == whole.objects


def _read_then(clash, scene, edit) -> object:
    """A check stepped to the end of its reading, ``edit()`` run there (as a modal check lets the user edit between
    two steps, before the triangles of the objects its broad phase keeps are read), then run to its end."""
    report, steps = clash.start_check(scene, bpy.context.evaluated_depsgraph_get(), scope="ALL")
    for done, total in steps:
        if done == total == len(scene.objects):
            break
    edit()
    bpy.context.view_layer.update()
    for _step in steps:
        pass
    return report


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("change", ["vertex count", "vertices moved"])
def test_an_object_edited_before_its_triangles_are_read_is_measured_as_one_moment(empty_scene, clash, change, big):
    """An object whose vertex count changed since its vertices were read is read again whole (the new geometry); one
    whose vertices only moved keeps the vertices read with its triangles (the old geometry): never a mix. Small
    objects and big ones (whose faces the reading splits) alike."""
    for name, x in (("A", 0.0), ("B", 0.6), ("C", 30.0)):
        obj = bpy.data.objects.new(name, big_sphere(np.random.default_rng(7)) if big and name == "B" else
                                   convex_mesh("cube"))
        obj.location = (x, 0.1 * x, 0.0)
        empty_scene.collection.objects.link(obj)
    bpy.context.view_layer.update()
    before = clash.check_scene(empty_scene, bpy.context.evaluated_depsgraph_get(), scope="ALL")
    b = bpy.data.objects["B"]
    if change == "vertex count":
        report = _read_then(clash, empty_scene, lambda: setattr(b, "data", convex_mesh("ico")))
        expected = clash.check_scene(empty_scene, bpy.context.evaluated_depsgraph_get(), scope="ALL")
        assert results(expected) != results(before)
    else:
        def shrink():
            for vertex in b.data.vertices:
                vertex.co *= 0.5
            b.data.update()
        report = _read_then(clash, empty_scene, shrink)
        expected = before
    assert [result.status for result in report.results] == ["penetrating"]
    assert repr(results(report)) == repr(results(expected))


def test_a_required_object_that_cannot_be_read_raises_naming_it(empty_scene, clash):
    crowded_scene(np.random.default_rng(3), 8)
    stray = bpy.data.objects["obj 502 stray"]
    with pytest.raises(clash.ObjectGeometryError, match="obj 502 stray"):
        clash.check_scene(empty_scene, bpy.context.evaluated_depsgraph_get(), scope="SELECTED",
                          objects=[bpy.data.objects["obj 000"], stray])


def test_a_mesh_without_modifiers_reads_what_to_mesh_gives(empty_scene, shapes, addon):
    """Read from the evaluated mesh itself (no ``to_mesh`` copy): the arrays ``to_mesh``'s copy gives, with shape keys,
    parents, mirroring, a mesh in Edit Mode with unflushed edits, one shared with an object in Edit Mode, and a
    modified object (read through ``to_mesh``) alike."""
    geometry = importlib.import_module(addon.__name__ + ".analysis.geometry")
    rng = np.random.default_rng(4)
    crowded_scene(rng, 8)
    keyed = bpy.data.objects.new("obj keyed", convex_mesh("uv"))
    keyed.shape_key_add(name="Basis")
    moved = keyed.shape_key_add(name="Moved")
    moved.data[3].co = (0.9, 0.2, -0.4)
    moved.value = 0.7
    parent = bpy.data.objects.new("obj parent", None)
    keyed.parent, parent.location, parent.scale = parent, (1.0, 2.0, 3.0), (1.0, -2.0, 0.5)
    modified = bpy.data.objects.new("obj modified", convex_mesh("ico"))
    modified.modifiers.new("bevel", 'BEVEL')
    edited = bpy.data.objects.new("obj edited", convex_mesh("cube"))
    sharing = bpy.data.objects.new("obj sharing", edited.data)
    for obj in (keyed, parent, modified, edited, sharing):
        empty_scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = edited
    edited.select_set(True)
    bpy.ops.object.mode_set(mode='EDIT')
    edit = bmesh.from_edit_mesh(edited.data)
    edit.verts.ensure_lookup_table()
    edit.verts[0].co.x += 0.25  # in the edit mesh only, until Edit Mode is left
    bmesh.update_edit_mesh(edited.data)
    try:
        depsgraph = bpy.context.evaluated_depsgraph_get()
        sources = [shapes.Source(obj.name, obj, obj) for obj in sorted(empty_scene.objects, key=lambda o: o.name)
                   if obj.type == 'MESH']
        for source in sources:
            read = shapes.read_arrays(source, depsgraph)
            with geometry.evaluated_mesh(source.obj, depsgraph) as (mesh, matrix_world):
                copied = geometry.mesh_arrays(mesh)
            assert read.matrix.tobytes() == matrix_world.tobytes(), source.name
            for field in dataclasses.fields(copied):
                ours, theirs = getattr(read.arrays, field.name), getattr(copied, field.name)
                assert (ours is None) == (theirs is None), (source.name, field.name)
                assert ours is None or ours.tobytes() == theirs.tobytes(), (source.name, field.name)
        keyed_read = shapes.read_arrays(shapes.Source(keyed.name, keyed, keyed), depsgraph)
        assert keyed_read.arrays.positions[3].tolist() != list(keyed.data.vertices[3].co)  # the key applied
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')
