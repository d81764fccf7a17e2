"""Self-intersection check: each object against itself (the faces of one object that pass through each other).

Each object's evaluated world-space triangles are read once (``shapes``) and checked with
``core.mesh.self_intersection`` (exact: faces that only touch do not count). For closed objects the volume
covered twice is measured too (``core.mesh.parts_union.covered_twice``): inside two or more of their parts, or two
or more sheets of a part crossing itself. The command line calls ``check_objects``; the operator takes the same
steps a slice at a time (``start_self_check``), a big object's numpy work on a worker thread.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import bpy
import numpy as np

from ..core.mesh import Solid
from ..core.mesh.parts_union import covered_twice
from ..core.mesh.self_intersection import SelfIntersection, self_intersection
from ..core.mesh.topology import label_components, loose_parts
from ..core.mesh.trimesh import TriangleMesh
from ..core.mesh.weld import exact_representatives
from .background import Announced, meanwhile
from .self_check_report import SelfCheckReport, SelfCheckResult
from .shapes import ReadSource, Source, may_be_slow_to_read, mesh_from_arrays, read_arrays, scope_sources

#: Crossing segments kept per object for drawing and reports; past it, every k-th (the counts stay exact).
MAX_SEGMENTS = 100_000


@dataclass(frozen=True)
class CheckedObject:
    """An object checked against itself: its report line and which of its evaluated triangles take part."""

    result: SelfCheckResult
    source: Source
    triangles: np.ndarray


def covered_twice_volume(solid: Solid, found: SelfIntersection) -> float | None:
    """The volume a closed object covers twice: inside two or more of its parts, or two or more sheets of a part
    crossing itself; None when it is open or cannot be measured (a part that is no manifold, or rounding near
    degenerate triple crossings, see ``parts_union``). ``found``: the self-intersections of the object's triangles
    as given (``solid.raw_mesh``)."""
    if not solid.closed:
        return None
    own = None
    if found.count:
        labels = geometric_parts(solid.raw_mesh)
        if (labels[found.pairs[:, 0]] == labels[found.pairs[:, 1]]).any():  # a part crosses itself
            own = own_crossings(solid, found)
    return covered_twice([part.mesh for part in solid.parts], [part.convex for part in solid.parts],
                         solid.part_overlaps, own)


def own_crossings(solid: Solid, found: SelfIntersection) -> list[np.ndarray]:
    """Per part of ``solid``, the (K, 2) pairs of its own triangles that cross (numbered in the part; folds lying
    in one plane left out: they cover nothing twice). When the triangles measured are those given (a mesh closed as
    indexed: the parts keep their order), ``found``'s pairs are renumbered; otherwise each part is checked again."""
    if solid.repair.mesh is not solid.raw_mesh:
        crossings = [self_intersection(part.mesh) for part in solid.parts]
        return [crossing.pairs[~crossing.coplanar] for crossing in crossings]
    labels, count = loose_parts(solid.mesh)
    order = np.argsort(labels, kind="stable")
    sizes = np.bincount(labels, minlength=count)
    within = np.empty(len(labels), np.int64)  # each triangle's index in its part's mesh
    within[order] = np.arange(len(labels)) - (np.cumsum(sizes) - sizes)[labels[order]]
    pairs = found.pairs[~found.coplanar]
    part = labels[pairs[:, 0]]
    same = part == labels[pairs[:, 1]]
    return [within[pairs[same & (part == k)]] for k in range(count)]


def geometric_parts(mesh: TriangleMesh) -> np.ndarray:
    """(M,) a label per triangle: triangles joined through vertices at bit-identical positions share one (the loose
    parts as they look, whatever the vertex indexing)."""
    corners = exact_representatives(mesh.vertices)[mesh.triangles]
    root, _ = label_components(len(mesh.vertices), np.concatenate([corners[:, 0], corners[:, 1]]),
                               np.concatenate([corners[:, 1], corners[:, 2]]))
    return root[corners[:, 0]]


def measure_read(read: ReadSource) -> tuple[SelfCheckResult, np.ndarray]:
    """The read object checked against itself (numpy alone: may run on a worker thread): its report line and which
    of its evaluated triangles take part; ObjectGeometryError naming it when it cannot be measured."""
    solid = Solid(mesh_from_arrays(read), name=read.name)
    found = self_intersection(solid.raw_mesh)
    crossing = found.segments
    if len(crossing) > MAX_SEGMENTS:
        crossing = crossing[:: -(-len(crossing) // MAX_SEGMENTS)]
    result = SelfCheckResult(
        object=read.name, triangles=len(solid.raw_mesh.triangles), face_pairs=found.count,
        coplanar_pairs=int(found.coplanar.sum()), faces=len(found.triangles), curves=found.curve_count,
        closed=solid.closed, covered_twice_volume=covered_twice_volume(solid, found),
        segments=tuple(tuple(map(tuple, segment)) for segment in crossing.tolist()))
    return result, found.triangles


def check_source_steps(source: Source, depsgraph: bpy.types.Depsgraph, progress=None) -> Iterator:
    """One object checked against itself as steps: Blender's arrays copied at once (``read_arrays``), the rest
    (``measure_read``) on a worker thread for a big mesh (``analysis.background``), yielding ``progress``
    meanwhile. Its triangles as evaluated, so that their indices are its faces' (``face_selection``)."""
    read = read_arrays(source, depsgraph)
    result, triangles = yield from meanwhile(lambda: measure_read(read), read.triangle_count, progress)
    return CheckedObject(result, source, triangles)


def start_self_check(objects: Iterable[bpy.types.Object], view_layer: bpy.types.ViewLayer, depsgraph, scope: str
                     ) -> tuple[SelfCheckReport, list[CheckedObject], Iterator]:
    """The check of ``objects`` (with geometry, visible) against themselves, begun: the report (its ``results`` and
    ``seconds`` filled at the end, its ``activity`` naming the object being checked), the list the checked objects
    go into (sorted by name) and the steps, ``(done, total)`` objects each; before an object that may be slow to
    read, an ``Announced`` step. Closed early, nothing is filled in."""
    clock = time.perf_counter()
    report = SelfCheckReport(scope=scope, blend_file=bpy.data.filepath, blender_version=bpy.app.version_string,
                             time=datetime.now(UTC).isoformat(timespec="seconds"))
    sources = scope_sources(objects, view_layer, depsgraph, report.skipped)
    checked: list[CheckedObject] = []
    return report, checked, _check_steps(report, sources, depsgraph, checked, clock)


def _check_steps(report: SelfCheckReport, sources: list[Source], depsgraph, checked: list, clock: float
                 ) -> Iterator:
    found = []
    for done, source in enumerate(sources):
        report.activity = source.name
        if may_be_slow_to_read(source):
            yield Announced((done, len(sources)))  # the interface names it before the read holds it
        found.append((yield from check_source_steps(source, depsgraph, (done, len(sources)))))
        yield done + 1, len(sources)
    checked.extend(found)
    report.results = [item.result for item in checked]
    report.seconds = time.perf_counter() - clock


def check_objects(objects: Iterable[bpy.types.Object], view_layer: bpy.types.ViewLayer, depsgraph, scope: str
                  ) -> tuple[SelfCheckReport, list[CheckedObject]]:
    """Every object of ``objects`` (with geometry, visible) checked against itself at once (``start_self_check``):
    the report and the checked objects (their triangles, for the face selection)."""
    report, checked, steps = start_self_check(objects, view_layer, depsgraph, scope)
    for _step in steps:
        pass
    return report, checked
