"""Resolve moves the shapes the analysis read instead of reading the objects again, with the numbers a fresh read
gives (to rounding), and reads an object again once its geometry changed."""

from __future__ import annotations

import importlib
from collections import Counter

import bpy
import pytest

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)


@pytest.fixture
def reads(addon, monkeypatch) -> Counter:
    """How many times each object is read (by name) while measuring stored results again."""
    solid_cache = importlib.import_module(f"{addon.__name__}.analysis.solid_cache")
    read_solid_steps, counts = solid_cache.read_solid_steps, Counter()

    def counted(source, depsgraph, use_hull):
        counts[source.name] += 1
        return read_solid_steps(source, depsgraph, use_hull)

    monkeypatch.setattr(solid_cache, "read_solid_steps", counted)
    return counts


@pytest.fixture
def kept_shapes(addon):
    return importlib.import_module(f"{addon.__name__}.analysis.analysed_shapes")


def suzanne_in_cube() -> tuple[bpy.types.Object, list]:
    """A cube (A) and a subdivided Suzanne (B, not convex) through it."""
    add_cube("Cube", 0.9)
    bpy.ops.mesh.primitive_monkey_add(location=(0.0, 0.0, 0.0))
    suzanne = bpy.context.active_object
    suzanne.name = "Suzanne"
    suzanne.modifiers.new("Subdivision", 'SUBSURF').levels = 1
    return suzanne, [bpy.data.objects["Cube"], suzanne]


def sphere_in_cube() -> tuple[bpy.types.Object, list]:
    """A cube (A) and a UV sphere (B, convex) 0.3 into it, a little off its axis."""
    add_cube("Cube", 0.0)
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, location=(0.7, 0.1, 0.05))
    sphere = bpy.context.active_object
    sphere.name = "Sphere"
    return sphere, [bpy.data.objects["Cube"], sphere]


def numbers(results) -> list:
    """Every stored number of the results."""
    return [(r.value, *r.normal, *r.point_a, *r.point_b, r.overlap_volume) for r in results]


def resolved(scene, objects, b, clearance: float) -> tuple[list, list]:
    """Analyse the pair, resolve it; ``(numbers, B's location)``, B put back where it was after."""
    placed = b.matrix_world.copy()
    select_only(*objects)
    assert [row[2] for row in analyse('SELECTED')] == ['penetrating']
    assert bpy.ops.collision_inspector.resolve(index=0, clearance=clearance) == {'FINISHED'}
    assert scene.collision_inspector.results[0].status != 'penetrating'
    outcome = numbers(scene.collision_inspector.results), list(b.matrix_world.translation)
    b.matrix_world = placed
    bpy.context.view_layer.update()
    return outcome


@pytest.mark.parametrize("pair", [suzanne_in_cube, sphere_in_cube])
@pytest.mark.parametrize("clearance", [0.0, 0.05])
def test_resolve_moves_the_analysed_shape_and_gives_the_numbers_of_a_fresh_read(empty_scene, reads, kept_shapes,
                                                                               monkeypatch, pair, clearance):
    b, objects = pair()
    bpy.context.view_layer.update()
    reused, moved_to = resolved(empty_scene, objects, b, clearance)
    assert reads == Counter()  # neither object read again
    kept_shapes.clear()
    monkeypatch.setattr(kept_shapes, "keep", lambda shapes: None)  # nothing kept: Resolve reads afresh
    fresh, fresh_moved_to = resolved(empty_scene, objects, b, clearance)
    assert reads == Counter({b.name: 1, objects[0].name: 1})
    assert moved_to == fresh_moved_to
    assert reused == [pytest.approx(row, rel=1e-12, abs=1e-12) for row in fresh]


def test_b_is_read_again_once_its_geometry_changed(empty_scene, reads):
    b, objects = suzanne_in_cube()
    bpy.context.view_layer.update()
    select_only(*objects)
    assert [row[2] for row in analyse('SELECTED')] == ['penetrating']
    b.modifiers["Subdivision"].levels = 2
    bpy.context.view_layer.update()
    assert bpy.ops.collision_inspector.resolve(index=0) == {'FINISHED'}
    assert reads == Counter({"Suzanne": 1})


def test_b_is_read_again_on_another_frame(empty_scene, reads, kept_shapes):
    """A frame change sends no depsgraph update the add-on hears: the geometry stamp still tells."""
    b, objects = suzanne_in_cube()
    bpy.context.view_layer.update()
    select_only(*objects)
    assert [row[2] for row in analyse('SELECTED')] == ['penetrating']
    empty_scene.frame_set(empty_scene.frame_current + 1)
    assert bpy.ops.collision_inspector.resolve(index=0) == {'FINISHED'}
    assert reads == Counter({"Suzanne": 1, "Cube": 1})


def test_resolve_all_reads_nothing_again(empty_scene, reads):
    for name, x in (("A", 0.0), ("B", 0.8), ("C", 1.6)):
        add_cube(name, x)
    select_only(*(bpy.data.objects[name] for name in "ABC"))
    assert [row[2] for row in analyse('SELECTED')].count('penetrating') == 2
    assert bpy.ops.collision_inspector.resolve_all() == {'FINISHED'}
    assert not any(r.status == 'penetrating' for r in empty_scene.collision_inspector.results)
    assert reads == Counter()


class AtFreedAddress:
    """``obj`` as Blender shows it when it and its mesh were allocated where a freed object and mesh were: their
    addresses (``as_pointer``) are the freed ones', everything else is theirs."""

    def __init__(self, obj: bpy.types.Object, pointer: int, data_pointer: int) -> None:
        self._obj, self._pointer = obj, pointer
        self.data = AtFreedAddress.__new__(AtFreedAddress)
        self.data._obj, self.data._pointer = obj.data, data_pointer

    def as_pointer(self) -> int:
        return self._pointer

    def __getattr__(self, name: str):
        return getattr(self._obj, name)


def test_a_new_object_at_a_freed_object_s_address_is_read_not_given_the_freed_shape(empty_scene, addon, kept_shapes):
    """A 1 m cube's shape is kept (by the live update's cache and for Resolve), the cube and its mesh are deleted and
    a 2 m cube comes at their addresses (Blender reuses freed memory): its own shape is read, none lent."""
    solid_cache = importlib.import_module(f"{addon.__name__}.analysis.solid_cache")
    shapes = importlib.import_module(f"{addon.__name__}.analysis.shapes")
    freed = add_cube("Cube", 0.0)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    cache, source = solid_cache.SolidCache(), shapes.Source("Cube", freed, freed)
    first = cache.solid(source, depsgraph, use_hull=False)
    kept_shapes.keep([(source, first, *kept_shapes.placement(source, depsgraph))])
    pointer, data_pointer, key = freed.as_pointer(), freed.data.as_pointer(), solid_cache.source_key(source)
    mesh = freed.data
    bpy.data.objects.remove(freed)
    bpy.data.meshes.remove(mesh)
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    reused = AtFreedAddress(bpy.context.active_object, pointer, data_pointer)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    again = shapes.Source("Cube", reused, reused)
    assert solid_cache.source_key(again) == key
    assert cache.solid(again, depsgraph, use_hull=False).mesh.size == pytest.approx(2.0)
    assert kept_shapes.lend(solid_cache.SolidCache(), [again], depsgraph, use_hull=False) == 0
