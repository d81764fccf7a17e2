"""Interactive inspection: directional depth, plane mode, rigid-body shapes, and the pair document of "Copy
Pair for Report" (docs/architecture.md, "Inspection modes").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import bpy
import numpy as np

from ..core import collide
from ..core.narrowphase.directional import directional_depth
from ..core.mesh import CONVEX, HULL, Solid, SolidContact
from ..core.planar.projection import collide_in_plane, plane_basis
from ..core.replay import pair_document, write_pair
from ..core.shapes.rigid import RIGID_BODY_KINDS, rigid_body_shape
from .background import Announced, meanwhile
from .geometry import ObjectGeometryError, evaluated_mesh, world_points
from .shapes import ReadSource, Source, may_be_slow_to_read, mesh_from_arrays, read_arrays, scope_sources
from .typed import typed_decimal

#: Plane normals of the fixed plane modes (Blender's top, front and right orthographic views).
PLANE_NORMALS = {'TOP': (0.0, 0.0, 1.0), 'FRONT': (0.0, -1.0, 0.0), 'SIDE': (1.0, 0.0, 0.0)}
#: World axes of the directional depth's fixed axes.
AXIS_VECTORS = {'X': (1.0, 0.0, 0.0), 'Y': (0.0, 1.0, 0.0), 'Z': (0.0, 0.0, 1.0),
                'NEG_X': (-1.0, 0.0, 0.0), 'NEG_Y': (0.0, -1.0, 0.0), 'NEG_Z': (0.0, 0.0, -1.0)}


@dataclass(frozen=True)
class MeasureModes:
    """How the check measures pairs besides the default: rigid-body shapes, and a plane (unit normal)."""

    rigid_bodies: bool = False
    plane_normal: np.ndarray | None = None

    @property
    def default(self) -> bool:
        return not self.rigid_bodies and self.plane_normal is None


def view_direction(context=None) -> np.ndarray | None:
    """Unit vector from the viewer into the scene of the context's 3D view (or the first one open), or None."""
    context = context or bpy.context
    region = getattr(context, "region_data", None)
    if region is None:
        screen = getattr(context, "screen", None)
        spaces = [area.spaces.active for area in (screen.areas if screen else ()) if area.type == 'VIEW_3D']
        region = spaces[0].region_3d if spaces else None
    if region is None:
        return None
    rotation = np.array(region.view_rotation.to_matrix(), dtype=np.float64)
    return -rotation[:, 2]


def plane_normal(settings, context=None) -> np.ndarray | None:
    """The unit normal of the plane mode's plane, None when the mode is off.

    'VIEW' uses the open 3D view (``ValueError`` without one, as in background mode); 'CUSTOM' the
    ``plane_normal`` setting (``ValueError`` when it is zero)."""
    mode = settings.plane_mode
    if mode == 'NONE':
        return None
    if mode == 'VIEW':
        normal = view_direction(context)
        if normal is None:
            raise ValueError("plane mode 'View' needs an open 3D viewport")
        return -normal
    normal = np.array(PLANE_NORMALS.get(mode, settings.plane_normal), dtype=np.float64)
    length = float(np.linalg.norm(normal))
    if length == 0.0:
        raise ValueError("the custom plane normal is zero")
    return normal / length


def measure_modes(scene: bpy.types.Scene, context=None) -> MeasureModes:
    """The scene's measuring modes (see ``MeasureModes``)."""
    settings = scene.collision_inspector
    return MeasureModes(bool(settings.use_rigid_body_shapes), plane_normal(settings, context))


#: The settings' ID property that keeps the modes the stored results were measured in (``keep_modes``).
KEPT_MODES = "measured_modes"


def mode_fields(settings, modes: MeasureModes) -> dict:
    """How ``modes`` measured, as the report header says it: ``plane_mode`` (the plane setting, 'NONE'
    without a plane), ``plane_normal`` (unit, None without a plane) and ``rigid_body_shapes`` (whether
    they were used: the option is on and no plane, which wins over them)."""
    if modes.plane_normal is None:
        return {'plane_mode': 'NONE', 'plane_normal': None, 'rigid_body_shapes': modes.rigid_bodies}
    name = settings.plane_mode if settings.plane_mode != 'NONE' else 'CUSTOM'
    return {'plane_mode': name, 'plane_normal': tuple(map(float, modes.plane_normal)), 'rigid_body_shapes': False}


def record_modes(report, settings, modes: MeasureModes) -> None:
    """Write ``modes`` into a ``ClashReport``'s header fields (see ``mode_fields``)."""
    for key, value in mode_fields(settings, modes).items():
        setattr(report, key, value)


def keep_modes(settings, report) -> None:
    """Keep the report's modes with the results just stored from it: reports exported later say them, and
    the live update and resolve measure those pairs the same way (a 'View' plane keeps its direction)."""
    settings[KEPT_MODES] = {'plane_mode': report.plane_mode, 'plane_normal': list(report.plane_normal or ()),
                            'rigid_body_shapes': bool(report.rigid_body_shapes)}


def record_kept_modes(report, settings) -> None:
    """Write the modes kept with the stored results into ``report`` (nothing when none were kept)."""
    kept = settings.get(KEPT_MODES)
    if kept is not None:
        normal = tuple(float(x) for x in kept.get('plane_normal', ()))
        report.plane_mode, report.plane_normal = str(kept.get('plane_mode', 'NONE')), normal or None
        report.rigid_body_shapes = bool(kept.get('rigid_body_shapes', False))


def stored_modes(scene: bpy.types.Scene, context=None) -> MeasureModes:
    """The modes the stored results were measured in (``keep_modes``); the scene's settings when none were
    kept (results of an older version). ``ValueError`` as ``measure_modes``."""
    kept = scene.collision_inspector.get(KEPT_MODES)
    if kept is None:
        return measure_modes(scene, context)
    normal = np.array([float(x) for x in kept.get('plane_normal', ())], dtype=np.float64)
    return MeasureModes(bool(kept.get('rigid_body_shapes', False)), normal if len(normal) == 3 else None)


def broad_phase_bounds(solids: list, shapes: list, modes: MeasureModes) -> tuple[np.ndarray, np.ndarray]:
    """``(lows, highs)`` (N, 3) boxes for the broad phase: world boxes of the measured shapes (rigid-body
    shapes where used), or in plane mode the boxes of the outlines in plane coordinates (u, v, 0), so
    objects at different heights still meet in a plan."""
    if modes.plane_normal is not None:
        u, v = plane_basis(modes.plane_normal)
        flats = [solid.raw_mesh.vertices @ np.column_stack([u, v]) for solid in solids]
        lows = np.array([[*flat.min(axis=0), 0.0] for flat in flats])
        highs = np.array([[*flat.max(axis=0), 0.0] for flat in flats])
        return lows, highs
    boxes = [solid.bounds if shape is None else shape.bounds() for solid, shape in zip(solids, shapes)]
    return np.array([low for low, _high in boxes]), np.array([high for _low, high in boxes])


def rigid_shape(source: Source, depsgraph: bpy.types.Depsgraph):
    """The ``core`` shape Bullet collides for the source's rigid body, or None (no rigid body, a 'MESH' or
    'COMPOUND' shape, or an instanced object: those are measured on their real surfaces)."""
    body = source.obj.rigid_body
    if source.matrix is not None or body is None or body.collision_shape not in RIGID_BODY_KINDS:
        return None
    with evaluated_mesh(source.obj, depsgraph) as (mesh, matrix_world):
        local = world_points(mesh, np.eye(4))
    if len(local) == 0:
        raise ObjectGeometryError(f"{source.name} has no mesh vertices for its rigid-body shape")
    return rigid_body_shape(body.collision_shape, (local.min(axis=0), local.max(axis=0)), matrix_world,
                            body.collision_margin, local, use_margin=body.use_margin)


def _rigid_pair(a: Solid, b: Solid, shape_a, shape_b, options: dict) -> tuple[SolidContact, str]:
    """A pair with at least one rigid-body shape: GJK/EPA against the other side's shape or hull."""
    sides = ((shape_a, a), (shape_b, b))
    shapes = [solid.hull if shape is None else shape for shape, solid in sides]
    contact = collide(*shapes, **options)
    hulls = [solid.name for shape, solid in sides if shape is None and solid.method != CONVEX]
    note = "; ".join(f"{name} is not convex: the answer is about its convex hull" for name in hulls)
    return _solid_contact(contact, CONVEX if not hulls else HULL), note


def _plane_pair(a: Solid, b: Solid, normal: np.ndarray, options: dict) -> tuple[SolidContact, str]:
    """A pair seen in the plane through the centre of its bounds."""
    low = np.minimum(a.bounds[0], b.bounds[0])
    high = np.maximum(a.bounds[1], b.bounds[1])
    contact = collide_in_plane(a.raw_mesh.vertices, b.raw_mesh.vertices, 0.5 * (low + high), normal, **options)
    hulls = [solid.name for solid in (a, b) if solid.method != CONVEX]
    note = "; ".join(f"{name} is not convex: its outline in the plane is a convex hull" for name in hulls)
    return _solid_contact(contact, CONVEX if not hulls else HULL), note


def _solid_contact(contact, method: str) -> SolidContact:
    return SolidContact(status=contact.status, signed_distance=contact.signed_distance, normal=contact.normal,
                        point_a=contact.point_a, point_b=contact.point_b, method=method,
                        tolerance=contact.tolerance, solver_status=contact.solver_status,
                        depth_lower_bound=contact.depth, overlap_volume=None)


def measure_in_mode(a: Solid, b: Solid, shapes: tuple, modes: MeasureModes, options: dict):
    """``(SolidContact, note)`` of a pair in the plane or with rigid-body shapes; None for the default way.

    ``shapes`` are the pair's rigid-body shapes (None where there is none); the plane mode wins over them.
    """
    options = {key: value for key, value in options.items() if value is not None}
    if modes.plane_normal is not None:
        return _plane_pair(a, b, modes.plane_normal, options)
    if modes.rigid_bodies and any(shape is not None for shape in shapes):
        return _rigid_pair(a, b, *shapes, options)
    return None


def result_sources(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, result) -> tuple[Source, Source]:
    """The two sources of a stored result (``ValueError`` when an object is gone or not measurable)."""
    view_layer = scene.view_layers[depsgraph.view_layer.name]
    found = []
    for obj, name in ((result.object_a, result.name_a), (result.object_b, result.name_b)):
        if obj is None:
            raise ValueError(f"{name} no longer exists")
        skipped: dict[str, str] = {}
        sources = {source.name: source for source in scope_sources([obj], view_layer, depsgraph, skipped)}
        if obj.name in skipped:
            raise ValueError(f"{obj.name} is {skipped[obj.name]}")
        source = sources.get(name) or sources.get(obj.name) or next(iter(sources.values()), None)
        if source is None:
            raise ValueError(f"{obj.name} has nothing to measure")
        found.append(source)
    return found[0], found[1]


#: The steps of a pair's inspection: reading A, reading B, then measuring (or writing).
INSPECTION_STEPS = 3


def pair_shapes_steps(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, result) -> Iterator:
    """Steps, ``(done, INSPECTION_STEPS)`` each, returning ``(shape A, shape B, exact)``: the core shapes the
    directional depth uses for a stored result, its rigid-body shapes where the results were measured with them
    (``stored_modes``), else convex hulls (``exact`` False when a hull stands in for a non-convex object). Each
    object's arrays are copied from Blender at once, the rest (triangles, classification, hull) made on a worker
    thread for a big mesh (``analysis.background``); before an object that may be slow to read, an ``Announced``
    step."""
    use_hulls, rigid_bodies = scene.collision_inspector.use_hulls, stored_modes(scene).rigid_bodies
    shapes, exact = [], True
    for done, source in enumerate(result_sources(scene, depsgraph, result)):
        shape = rigid_shape(source, depsgraph) if rigid_bodies else None
        if shape is None:
            if may_be_slow_to_read(source):
                yield Announced((done, INSPECTION_STEPS))
            read = read_arrays(source, depsgraph)
            shape, convex = yield from meanwhile(lambda: hull_of(read, use_hulls), read.arrays.triangle_count,
                                                 (done, INSPECTION_STEPS))
            exact = exact and convex
        shapes.append(shape)
        yield done + 1, INSPECTION_STEPS
    return shapes[0], shapes[1], exact


def hull_of(read: ReadSource, use_hull: bool) -> tuple:
    """``(hull, exact)`` of a read object (numpy alone: may run on a worker thread): its convex hull, and whether
    that is the object itself (convex) or the hull the settings ask for."""
    solid = Solid(mesh_from_arrays(read), use_hull=use_hull, name=read.name)
    return solid.hull, solid.method in (CONVEX, HULL)


def axis_vector(axis: str, result, context=None) -> np.ndarray:
    """The direction of a directional-depth axis: a world axis, the view direction or the result's normal."""
    if axis == 'NORMAL':
        return np.array(result.normal, dtype=np.float64)
    if axis == 'VIEW':
        direction = view_direction(context)
        if direction is None:
            raise ValueError("the view direction needs an open 3D viewport")
        return direction
    return np.array(AXIS_VECTORS[axis], dtype=np.float64)


def directional_depth_steps(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, result,
                            direction: np.ndarray) -> Iterator:
    """Steps returning ``(DirectionalResult, exact)`` of B of a stored result moving along ``direction``
    (``pair_shapes_steps``, then the measure on the worker thread when an object was big)."""
    settings = scene.collision_inspector
    options = {"tolerance": settings.tolerance or None, "touch_tolerance": settings.touch_tolerance,
               "max_iterations": settings.max_iterations or None}
    shape_a, shape_b, exact = yield from pair_shapes_steps(scene, depsgraph, result)
    size = max(len(getattr(shape, "points", ())) for shape in (shape_a, shape_b))
    answer = yield from meanwhile(lambda: directional_depth(shape_a, shape_b, direction, **options), size,
                                  (INSPECTION_STEPS - 1, INSPECTION_STEPS))
    return answer, exact


def pair_document_steps(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, result) -> Iterator:
    """Steps, ``(done, INSPECTION_STEPS)`` each, returning the ``core.replay`` document of a stored result: both
    objects' world-space vertices, the solver settings, and what the add-on showed (in ``meta``). Both objects'
    arrays are copied from Blender at once (an ``Announced`` step before one that may be slow to read), the
    document made on a worker thread when they are big (``analysis.background``)."""
    settings = scene.collision_inspector
    sources = result_sources(scene, depsgraph, result)
    meta = {
        "object_a": sources[0].name, "object_b": sources[1].name, "blend_file": bpy.data.filepath,
        "blender_version": bpy.app.version_string, "method": result.method, "status": result.status,
        "signed_distance": float(result.signed_distance),
        "note": "points are the objects' world-space vertices; the replay measures their convex hulls",
    }
    document_settings = {"tolerance": typed_decimal(settings.tolerance) or None,
                         "touch_tolerance": typed_decimal(settings.touch_tolerance),
                         "max_iterations": settings.max_iterations or None}
    reads = []
    for done, source in enumerate(sources):
        if may_be_slow_to_read(source):
            yield Announced((done, INSPECTION_STEPS))
        reads.append(read_arrays(source, depsgraph))
        yield done + 1, INSPECTION_STEPS
    return (yield from meanwhile(
        lambda: pair_document(*(mesh_from_arrays(read).vertices for read in reads), document_settings, meta=meta),
        sum(read.arrays.triangle_count for read in reads), (INSPECTION_STEPS - 1, INSPECTION_STEPS)))


def result_still_at(scene: bpy.types.Scene, index: int, label: str):
    """The stored result at ``index`` if it is still the pair ``label`` (results may be cleared meanwhile), or None."""
    results = scene.collision_inspector.results
    return results[index] if index < len(results) and results[index].label == label else None


def write_document(path: Path, document: dict) -> str:
    """Write the pair's document (numpy and files alone: may run on a worker thread); its text. OSError names the
    file when it cannot be written."""
    try:
        return write_pair(path, document)
    except OSError as error:
        raise OSError(f"Could not write {path}: {error}") from None
