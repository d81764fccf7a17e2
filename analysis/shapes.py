"""What a check measures: each visible, evaluated object (or instanced object, "Instancer ▸ Object") in the
scope, read once as a ``core.mesh.Solid``; objects without measurable geometry are skipped with the reason
(docs/architecture.md, "What a check measures").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import bpy
import numpy as np

from ..core.mesh import Solid, TriangleMesh
from ..core.steps import checkpoint
from ..core.vector.arrays import reduce_in_chunks
from .background import meanwhile
from .geometry import (MeshArrays, ObjectGeometryError, evaluated_mesh, has_geometry, mesh_arrays, to_world,
                       triangles_of_many)

#: The separator in an instanced object's name: "Instancer ▸ Object".
INSTANCE_SEPARATOR = " \u25b8 "
#: Blender stores coordinates as float32 and clamps infinity to its largest value; a coordinate this big
#: is an infinity in disguise.
FLOAT32_LIMIT = float(np.finfo(np.float32).max) * 0.5


@dataclass(frozen=True, eq=False)
class Source:
    """One thing to measure: an object, or one object of a collection instance.

    ``owner`` is the scene object results point at (the instancer for instanced objects); ``obj`` is the
    object whose evaluated geometry is read; ``matrix`` places it (None: its own world matrix).
    """

    name: str
    owner: bpy.types.Object
    obj: bpy.types.Object
    matrix: np.ndarray | None = None


def is_collection_instancer(obj: bpy.types.Object) -> bool:
    """An object that instances a collection (its instances are what gets measured)."""
    return obj.instance_type == 'COLLECTION' and obj.instance_collection is not None


def is_candidate(obj: bpy.types.Object) -> bool:
    """Objects a scope may contain: those with geometry, and collection instancers."""
    return has_geometry(obj) or is_collection_instancer(obj)


def skip_reason(obj: bpy.types.Object, view_layer: bpy.types.ViewLayer, layer_objects: set | None = None) -> str:
    """Why ``obj`` is not measured in ``view_layer`` ('' when it is). ``layer_objects``, the view layer's objects
    as a set, saves asking the view layer by name (a linear search: quadratic over a scope of many objects)."""
    if obj not in (set(view_layer.objects) if layer_objects is None else layer_objects):
        return "not in the view layer (its collection is excluded)"
    if not obj.visible_get(view_layer=view_layer):
        return "hidden or in a collection disabled in viewports"
    return ""


def instances_by_instancer(instancers: set, depsgraph: bpy.types.Depsgraph) -> dict:
    """``{instancer: [(object, instance matrix), ...]}`` for the objects with geometry each instancer shows.

    One pass over the depsgraph's instances, whatever the number of instancers.
    """
    found = {instancer: [] for instancer in instancers}
    if not instancers:
        return found
    for instance in depsgraph.object_instances:
        parent = instance.parent
        if not instance.is_instance or parent is None or parent.original not in found:
            continue
        original = instance.object.original
        if has_geometry(original):
            found[parent.original].append((original, np.array(instance.matrix_world, dtype=np.float64)))
    return found


def instance_sources(instancer: bpy.types.Object, instances: list) -> list[Source]:
    """A Source per instanced object, named "Instancer ▸ Object" (numbered when one object repeats)."""
    names = [f"{instancer.name}{INSTANCE_SEPARATOR}{obj.name}" for obj, _matrix in instances]
    return [Source(name if names[:k].count(name) == 0 else f"{name} ({names[:k].count(name) + 1})",
                   instancer, obj, matrix)
            for k, (name, (obj, matrix)) in enumerate(zip(names, instances))]


def current_name(obj: bpy.types.Object | None, stored: str) -> str:
    """The current name of a stored result's side: the object's, or for an instanced object "Instancer ▸
    Object" under the instancer's current name; the stored name once the object is deleted."""
    if obj is None:
        return stored
    if INSTANCE_SEPARATOR in stored:
        return f"{obj.name}{INSTANCE_SEPARATOR}{stored.split(INSTANCE_SEPARATOR, 1)[1]}"
    return obj.name


def instanced_sources(instancers: set, depsgraph: bpy.types.Depsgraph) -> dict[str, Source]:
    """``{name: Source}`` of every object the ``instancers`` show, placed where they are now."""
    return {source.name: source for instancer, shown in instances_by_instancer(instancers, depsgraph).items()
            for source in instance_sources(instancer, shown)}


def instanced_objects(instancer: bpy.types.Object) -> set:
    """Pointers of the objects whose geometry ``instancer`` shows (through nested collection instances too)."""
    found, pending, seen = set(), [instancer], set()
    while pending:
        collection = pending.pop().instance_collection
        if collection is None or collection.as_pointer() in seen:
            continue
        seen.add(collection.as_pointer())
        for obj in collection.all_objects:
            found.add(obj.as_pointer())
            if is_collection_instancer(obj):
                pending.append(obj)
    return found


def scope_sources(objects: Iterable[bpy.types.Object], view_layer: bpy.types.ViewLayer,
                  depsgraph: bpy.types.Depsgraph, skipped: dict[str, str]) -> list[Source]:
    """Sources of ``objects`` sorted by name; objects left out are added to ``skipped`` with the reason."""
    measured = []
    layer_objects = set(view_layer.objects)
    for obj in {obj for obj in objects if is_candidate(obj)}:
        reason = skip_reason(obj, view_layer, layer_objects)
        if reason:
            skipped[obj.name] = reason
        else:
            measured.append(obj)
    instances = instances_by_instancer({obj for obj in measured if is_collection_instancer(obj)}, depsgraph)
    sources = [Source(obj.name, obj, obj) for obj in measured if has_geometry(obj)]
    for instancer, shown in instances.items():
        sources.extend(instance_sources(instancer, shown))
    return sorted(sources, key=lambda source: source.name)


#: Mesh objects with at least this many faces before their modifiers may take a noticeable time to read.
SLOW_READ_FACES = 20000
#: Modifiers that multiply the faces (and that Blender evaluates lazily, or on the GPU for the viewport).
MULTIPLYING_MODIFIERS = frozenset({'SUBSURF', 'MULTIRES'})


def may_be_slow_to_read(source: Source) -> bool:
    """True when reading the source's evaluated geometry may hold the interface noticeably: a mesh of many faces
    or one under a subdivision (whose evaluation the reading may ask Blender for)."""
    obj = source.obj
    if obj.type != 'MESH':
        return False
    return len(obj.data.polygons) >= SLOW_READ_FACES or any(
        modifier.type in MULTIPLYING_MODIFIERS and modifier.show_viewport for modifier in obj.modifiers)


def subdivided_faces_at_least(obj: bpy.types.Object) -> int:
    """At least how many faces the mesh object's evaluated mesh has, from its own faces and its subdivision levels,
    without asking Blender for the evaluated mesh (which, for an object the viewport subdivides on the GPU, has
    Blender subdivide it on the CPU: seconds for a million faces); 0 when other modifiers (which may remove faces)
    are shown, or it is no mesh. A subdivision level turns a face into at least three (a triangle into three quads),
    every further level each quad into four."""
    if obj.type != 'MESH':
        return 0
    shown = [modifier for modifier in obj.modifiers if modifier.show_viewport]
    if any(modifier.type not in MULTIPLYING_MODIFIERS for modifier in shown):
        return 0
    levels = sum(modifier.levels for modifier in shown)
    return len(obj.data.polygons) * (3 * 4 ** (levels - 1) if levels else 1)


@dataclass(frozen=True, eq=False)
class ReadSource:
    """A source's evaluated mesh as read from Blender (``read_arrays``) and the matrix that places it, with the
    meshes its geometry nodes instance and theirs (``instances``): all that ``mesh_from_arrays`` needs, with no
    reference to Blender's data (which may change or go meanwhile)."""

    name: str
    arrays: MeshArrays
    matrix: np.ndarray
    instances: tuple[tuple[MeshArrays, np.ndarray], ...] = ()
    #: Its triangles not read yet (``read_arrays(..., triangles=False)``: ``arrays`` has no faces), until
    #: ``with_triangles``.
    pending: bool = False

    @property
    def triangle_count(self) -> int:
        """How many triangles the source's mesh and its instances give."""
        return self.arrays.triangle_count + sum(arrays.triangle_count for arrays, _matrix in self.instances)


def node_instances(obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph) -> tuple:
    """``((arrays, world matrix), ...)`` of the meshes that the object's Geometry Nodes modifiers instance (a scatter
    made by Instance on Points, objects or collections placed by nodes), or its vertex or face instancing places
    (its children at its vertices or faces): part of the object as the viewport shows it, as Realize Instances
    (or Make Instances Real) would make them. () for an object with neither, whose instances are not looked for."""
    by_nodes = any(modifier.type == 'NODES' and modifier.show_viewport for modifier in getattr(obj, "modifiers", ()))
    if not by_nodes and obj.instance_type not in {'VERTS', 'FACES'}:
        return ()
    evaluated = obj.evaluated_get(depsgraph)
    if (obj.instance_type not in {'VERTS', 'FACES'} and hasattr(evaluated, "evaluated_geometry")
            and evaluated.evaluated_geometry().instances_pointcloud() is None):
        return ()  # Blender 4.3 and later say at once when the nodes make no instances
    found, copied = [], {}  # a scatter's instances mostly show a few meshes: each copied once
    for instance in depsgraph.object_instances:
        parent = instance.parent
        if instance.is_instance and parent is not None and parent.original == obj and instance.object.type == 'MESH':
            mesh = instance.object.data
            arrays = copied.get(mesh.as_pointer())
            if arrays is None:
                arrays = copied[mesh.as_pointer()] = mesh_arrays(mesh)
            found.append((arrays, np.array(instance.matrix_world, dtype=np.float64)))
    return tuple(found)


def read_arrays(source: Source, depsgraph: bpy.types.Depsgraph, triangles: bool = True) -> ReadSource:
    """The source's evaluated mesh and its geometry nodes' instances (``node_instances``) copied out of Blender
    (``geometry.mesh_arrays``: the main thread's share of reading it). A mesh object without modifiers, its mesh not in
    Edit Mode, is read from its evaluated mesh itself (its data with shape keys applied: what ``to_mesh`` would copy,
    without the copy, a quarter of a small object's read). With ``triangles`` False, such an object's faces are left
    for ``with_triangles`` (``pending``): a check reads them only for the objects its broad phase keeps."""
    obj = source.obj
    direct = _direct(obj)
    if direct:
        evaluated = obj.evaluated_get(depsgraph)
        arrays = mesh_arrays(evaluated.data, triangles)
        matrix_world = np.array(evaluated.matrix_world, dtype=np.float64)
    else:
        with evaluated_mesh(obj, depsgraph) as (mesh, matrix_world):
            arrays = mesh_arrays(mesh)
    pending = direct and not triangles and arrays.loop_triangles is None and not len(arrays.face_starts)
    if source.matrix is not None:  # an object of a collection instance, placed by it
        return ReadSource(source.name, arrays, source.matrix, pending=pending)
    instances = node_instances(source.obj, depsgraph)
    if instances and pending:  # (made alone with its instances: read whole)
        return read_arrays(source, depsgraph)
    return ReadSource(source.name, arrays, matrix_world, instances, pending)


def _direct(obj: bpy.types.Object) -> bool:
    """A mesh object read from its evaluated mesh itself (``read_arrays``): without modifiers, not in Edit Mode."""
    return obj.type == 'MESH' and not obj.modifiers and not obj.data.is_editmode


def with_triangles(read: ReadSource, source: Source, depsgraph: bpy.types.Depsgraph) -> ReadSource:
    """The ``pending`` read of ``source`` with its faces (of the same evaluated mesh, read as ``read_arrays`` reads
    them: the same triangles); read again in full when the object is no longer read directly or its vertex count
    has changed since (an edit while a modal check ran), so that vertices and triangles are always of one moment."""
    obj = source.obj
    if _direct(obj):
        mesh = obj.evaluated_get(depsgraph).data
        if len(mesh.vertices) == len(read.arrays.positions):
            return ReadSource(read.name, mesh_arrays(mesh, local=read.arrays.positions), read.matrix, read.instances)
    return read_arrays(source, depsgraph)


def _world_triangles(arrays: MeshArrays, matrix: np.ndarray) -> np.ndarray:
    """The triangles of ``arrays``, turned over when ``matrix`` mirrors (a negative scale), so that faces outward in
    the object still face outward in the world, as a mirrored copy's do (``Solid.transformed``)."""
    triangles = arrays.triangles()
    return triangles[:, ::-1] if np.linalg.det(matrix[:3, :3]) < 0.0 else triangles


def mesh_from_arrays(read: ReadSource) -> TriangleMesh:
    """The read source's triangles in world space, its instances' after its own (numpy alone: may run on a worker
    thread); ObjectGeometryError says why it cannot be measured."""
    pieces = [(read.arrays, read.matrix), *read.instances]
    points = (np.concatenate([to_world(arrays.positions, matrix) for arrays, matrix in pieces]) if read.instances
              else to_world(read.arrays.positions, read.matrix))
    if len(points) == 0:
        raise ObjectGeometryError(f"{read.name} has no mesh vertices after evaluation (e.g. only points or curves, "
                                  "or Geometry Nodes instances shown through a collection instance)")
    if not np.isfinite(points).all() or np.abs(points).max() >= FLOAT32_LIMIT:
        raise ObjectGeometryError(f"{read.name} has non-finite vertex coordinates (NaN, infinity or Blender's "
                                  "float limit)")
    checkpoint()  # (a cancelled caller's worker stops here)
    if not read.instances:
        return TriangleMesh.from_arrays(points, _world_triangles(read.arrays, read.matrix), read.name)
    starts = np.cumsum([0] + [len(arrays.positions) for arrays, _matrix in pieces[:-1]])
    triangles = np.concatenate([_world_triangles(arrays, matrix) + start
                                for (arrays, matrix), start in zip(pieces, starts)])
    return TriangleMesh.from_arrays(points, triangles, read.name)


@dataclass(frozen=True, eq=False)
class Unread:
    """A source read but for its triangles (a ``pending`` read): its world vertices, checked, and their box (what the
    broad phase asks of a Solid, ``bounds``); ``meshes_from_many`` of its read ``with_triangles``, given these
    ``points``, makes its mesh."""

    read: ReadSource
    points: np.ndarray
    bounds: tuple[np.ndarray, np.ndarray]


def meshes_from_many(reads: list[ReadSource], points: list[np.ndarray | None] | None = None
                     ) -> list[TriangleMesh | Unread | ObjectGeometryError]:
    """``mesh_from_arrays`` of each read (the error it raises, returned), the same numbers, with the numpy work done
    for all of them together (faces split, ``geometry.triangles_of_many``; checks, copies:
    ``TriangleMesh.many_from_arrays``): many small objects cost a few numpy calls instead of a dozen each. World
    coordinates are one matrix product per object, as ``to_world`` makes them (a product of stacked matrices need not
    round the same way), or the read's ``points`` where given (an ``Unread``'s). A ``pending`` read gives an
    ``Unread`` instead of its mesh (or the error its vertices raise)."""
    points = [to_world(read.arrays.positions, read.matrix) if known is None else known
              for read, known in zip(reads, points or [None] * len(reads))]
    counts = np.array([len(p) for p in points], dtype=np.int64)
    together = np.concatenate(points) if points else np.empty((0, 3))
    fine = np.isfinite(together).all(axis=1) & (np.abs(together).max(axis=1, initial=0.0) < FLOAT32_LIMIT)
    alone = set(np.searchsorted(np.cumsum(counts), np.flatnonzero(~fine), side="right").tolist())
    alone.update(np.flatnonzero(counts == 0).tolist())
    alone.update(k for k, read in enumerate(reads) if read.instances)  # a scatter: its instances too, alone
    good = [k for k in range(len(reads)) if k not in alone and not reads[k].pending]
    unread = [k for k in range(len(reads)) if k not in alone and reads[k].pending]
    meshes: list = [None] * len(reads)
    for k in alone:
        try:
            meshes[k] = mesh_from_arrays(reads[k])  # what reading it alone makes, or the error it raises
        except ObjectGeometryError as error:
            meshes[k] = error
    if good:
        mirrors = np.linalg.det(np.array([reads[k].matrix[:3, :3] for k in good])) < 0.0
        triangles = [found[:, ::-1] if mirrored else found for found, mirrored in
                     zip(triangles_of_many([reads[k].arrays for k in good]), mirrors.tolist())]
        made = TriangleMesh.many_from_arrays(
            together if len(good) == len(reads) else np.concatenate([points[k] for k in good]),
            np.concatenate(triangles), counts[good], [len(found) for found in triangles],
            [reads[k].name for k in good])
        for k, mesh in zip(good, made):
            meshes[k] = mesh
    if unread:  # their boxes as ``many_from_arrays`` makes a mesh's (a minimum is exact in any order)
        starts = np.cumsum(counts[unread]) - counts[unread]
        chosen = np.concatenate([points[k] for k in unread])
        lows, highs = (reduce_in_chunks(ufunc, chosen, starts) for ufunc in (np.minimum, np.maximum))
        for k, low, high in zip(unread, lows, highs):
            meshes[k] = Unread(reads[k], points[k], (low, high))
    return meshes


def read_mesh(source: Source, depsgraph: bpy.types.Depsgraph) -> TriangleMesh:
    """The source's evaluated triangles in world space; ObjectGeometryError says why it cannot be measured."""
    return mesh_from_arrays(read_arrays(source, depsgraph))


def read_solid(source: Source, depsgraph: bpy.types.Depsgraph, use_hull: bool) -> Solid:
    """The source as a ``Solid`` (classified lazily by the core), or ObjectGeometryError naming it."""
    return Solid(read_mesh(source, depsgraph), use_hull=use_hull, name=source.name)


def read_solid_steps(source: Source, depsgraph: bpy.types.Depsgraph, use_hull: bool,
                     progress=None) -> Iterator:
    """``read_solid`` as steps: Blender's arrays copied at once (``read_arrays``), the rest (splitting the faces,
    world coordinates, checks) on a worker thread for a big mesh (``analysis.background``), yielding ``progress``
    meanwhile; the same Solid, or ObjectGeometryError naming the source."""
    read = read_arrays(source, depsgraph)
    mesh = yield from meanwhile(lambda: mesh_from_arrays(read), read.triangle_count, progress)
    return Solid(mesh, use_hull=use_hull, name=source.name)
