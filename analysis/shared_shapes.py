"""Objects that show the same geometry (linked duplicates, arrays of one mesh, a collection instanced many times)
read and classified once, in the geometry's own coordinates, and moved to each object (``Solid.transformed``).
When a copy's map could change an answer (see ``shares_classification``) it is read on its own, as before.
See docs/architecture.md, "Shared geometry".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import bpy
import numpy as np

from ..core.mesh import Solid
from ..core.mesh.repair import EXACT
from ..core.mesh.solid import CONVEXITY_TOLERANCE, EXACT_CONVEXITY, moved_vertices
from ..core.mesh.weld import have_exact_duplicates
from .background import meanwhile, triangles_of
from .shapes import FLOAT32_LIMIT, Source, read_solid_steps

#: A copy whose map's linear part has a smaller determinant (relative to its largest singular value cubed) is
#: read on its own: the map is too close to singular for its triangles to keep the geometry's shape.
NEAR_SINGULAR = 1e-9


def geometry_key(source: Source) -> tuple:
    """What a source's evaluated geometry, in its own coordinates, depends on: an unmodified mesh object's mesh
    data (its linked duplicates show the same), else the object itself (its instances show the same)."""
    obj = source.obj
    if (obj.type == 'MESH' and not obj.modifiers and obj.data.shape_keys is None and obj.mode != 'EDIT'):
        return 'data', obj.data.as_pointer()
    return 'object', obj.as_pointer()


def shares_classification(local: Solid, linear: np.ndarray) -> bool:
    """Whether ``local``'s classification holds for its copy under the linear map ``linear`` (3x3).

    An affine map keeps loose parts, closedness and convexity, but a part's convexity defect is measured relative
    to its size, and a map that stretches by up to κ (its condition number) changes that ratio by up to κ: the
    classification is shared only where every part's defect stays on the same side of each threshold
    (``CONVEXITY_TOLERANCE``, ``EXACT_CONVEXITY``) after multiplying or dividing it by κ. The repair is shared too,
    so the geometry must have been closed as indexed or welded only where vertices are bit-identical (which a map
    keeps); a tolerance weld or capped holes depend on the size and are not shared.
    """
    return bool(shared_classifications(local, np.asarray(linear, dtype=np.float64)[None])[0])


def shared_classifications(local: Solid, linears: np.ndarray) -> np.ndarray:
    """(K,) ``shares_classification`` of each of the (K, 3, 3) ``linears`` (one stacked SVD: LAPACK's answer for
    each matrix, as alone); a map with a coordinate that is not finite is never shared."""
    finite = np.isfinite(linears).all(axis=(1, 2))
    singular = np.linalg.svd(np.where(finite[:, None, None], linears, np.eye(3)), compute_uv=False)
    shared = finite & (singular[:, -1] > NEAR_SINGULAR * singular[:, 0])
    repair = local.repair
    if repair.certainty != EXACT or repair.non_manifold_edges or repair.open_edges or repair.turned_faces:
        return np.zeros(len(linears), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):  # (maps too near singular are left out above)
        stretch = singular[:, 0] / singular[:, -1]
    for part in local.parts:
        defect = part.convexity_defect
        if defect == 0.0 or defect == np.inf:
            continue
        for threshold in (CONVEXITY_TOLERANCE, EXACT_CONVEXITY):
            shared &= (defect * stretch > threshold) == (defect / stretch > threshold)
    return shared


def moved_copies(local: Solid, matrices: np.ndarray) -> list[Solid | None]:
    """``local`` moved by each of the (K, 4, 4) ``matrices`` (``Solid.transformed``) where the copy is what reading
    it would make and classify the same way (``shared_classifications``; the same vertices, as ``read_mesh`` moves
    them with the same arithmetic, none of them merged or too large), else None (to be read on its own). Each copy's
    vertices are one matrix product, as reading it makes them; the checks run on all of them together."""
    answers: list[Solid | None] = [None] * len(matrices)
    shared = np.flatnonzero(shared_classifications(local, matrices[:, :3, :3])).tolist()
    if not shared:
        return answers
    moved = np.stack([moved_vertices(local.mesh, matrices[k]) for k in shared])
    fine = np.isfinite(moved).all(axis=(1, 2))
    fine[fine] = np.abs(moved[fine]).max(axis=(1, 2), initial=0.0) < FLOAT32_LIMIT
    fine[fine] = ~have_exact_duplicates(moved[fine])
    for k, fits in zip(shared, fine.tolist()):
        if fits:
            answers[k] = local.transformed(matrices[k])
    return answers


class SharedShapes:
    """Reads a check's sources, each geometry shown by more than one source once (``geometry_key``)."""

    def __init__(self, sources: list[Source], use_hull: bool) -> None:
        self.use_hull = use_hull
        self._keys = {source: geometry_key(source) for source in sources}
        counts = Counter(self._keys.values())
        self._shared = {key for key, count in counts.items() if count > 1}
        self._local: dict[tuple, Solid | None] = {}
        #: How many geometries were read and classified in their own coordinates (for tests and benchmarks).
        self.local_reads = 0

    def shares(self, source: Source) -> bool:
        """Whether ``source`` shows a geometry that other sources show too (read through ``solid_steps``)."""
        return self._key(source) in self._shared

    def solid_steps(self, source: Source, depsgraph: bpy.types.Depsgraph, progress=None) -> Iterator:
        """As steps (``core.steps``), ``source`` as a Solid in world space: its shared geometry moved when
        ``shares_classification`` allows, else read on its own (``read_solid_steps``); the numpy work on a big
        geometry (building it, classifying it once, checking and moving a copy) runs on a worker thread, yielding
        ``progress`` meanwhile. Raises ObjectGeometryError naming the source."""
        key = self._key(source)
        if key not in self._shared:
            return (yield from read_solid_steps(source, depsgraph, self.use_hull, progress))
        local = yield from self._local_solid(key, source, depsgraph, progress)
        matrix = (source.matrix if source.matrix is not None else
                  np.array(source.obj.evaluated_get(depsgraph).matrix_world, dtype=np.float64))
        solid = None if local is None else (yield from meanwhile(
            lambda: moved_copies(local, matrix[None])[0], triangles_of([local]), progress))
        if solid is None:
            return (yield from read_solid_steps(source, depsgraph, self.use_hull, progress))
        solid.name = source.name
        return solid

    def local_steps(self, source: Source, depsgraph: bpy.types.Depsgraph, progress=None) -> Iterator:
        """As steps, the geometry ``source`` shares with other sources, read in its own coordinates and classified
        once (``moved_copies`` places it); None when it shares none, or cannot be read or shared (read the source
        on its own)."""
        key = self._key(source)
        if key not in self._shared:
            return None
        return (yield from self._local_solid(key, source, depsgraph, progress))

    def _key(self, source: Source) -> tuple:
        """``geometry_key(source)``, asked once for each of the sources given."""
        key = self._keys.get(source)
        return geometry_key(source) if key is None else key

    def _local_solid(self, key: tuple, source: Source, depsgraph, progress) -> Iterator:
        """As steps, the geometry read in its own coordinates and classified (None when it cannot be read or
        shared)."""
        if key not in self._local:
            try:
                local = yield from read_solid_steps(Source(source.name, source.owner, source.obj, np.eye(4)),
                                                    depsgraph, self.use_hull, progress)
                yield from meanwhile(lambda: local.method, triangles_of([local]), progress)  # classified once, here,
                self.local_reads += 1                                                        # for every copy
            except Exception:  # read on its own, where the error names the object
                local = None
            self._local[key] = local
        return self._local[key]
