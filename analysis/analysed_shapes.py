"""The shapes the last Analyse read for the objects of its clashes, kept so that Resolve moves them instead of
reading the objects again (reading a big object takes seconds on the main thread). A shape is lent only while its
object's evaluated geometry is what was read (forgotten on any update of its geometry, and lent only on the frame
and with the data it was read with: ``geometry_stamp``); see docs/architecture.md, "Resolve".
"""

from __future__ import annotations

from collections.abc import Iterable

import bpy
import numpy as np

from ..core.mesh import Solid
from .shapes import Source
from .solid_cache import SolidCache, data_identity, source_key

#: ``{source_key: (source, solid, matrix it was read at, geometry stamp then)}``.
_kept: dict[tuple, tuple[Source, Solid, np.ndarray, tuple]] = {}


def geometry_stamp(source: Source, depsgraph: bpy.types.Depsgraph) -> tuple:
    """What the source's evaluated geometry depends on besides edits (which ``forget`` hears of): the frame and the
    object's data (``solid_cache.data_identity``: not its address, which new data may reuse). Nothing is read from
    the evaluated geometry: in the interface, asking an object subdivided on the GPU for its evaluated mesh makes
    Blender subdivide it on the CPU, and a subdivided mesh's counts differ between before and after that."""
    return depsgraph.scene.frame_current, data_identity(source.obj)


def placement(source: Source, depsgraph: bpy.types.Depsgraph) -> tuple[np.ndarray, tuple]:
    """``(matrix, geometry stamp)`` of the source now: taken when it is read, to keep its shape with."""
    matrix = (source.matrix if source.matrix is not None else
              np.array(source.obj.evaluated_get(depsgraph).matrix_world, dtype=np.float64))
    return matrix, geometry_stamp(source, depsgraph)


def keep(shapes: Iterable[tuple[Source, Solid, np.ndarray, tuple]]) -> None:
    """Keep ``(source, solid, matrix read at, geometry stamp then)`` of an analysis, instead of the last one's."""
    _kept.clear()
    _kept.update((source_key(shape[0]), shape) for shape in shapes)


def lend(cache: SolidCache, sources: Iterable[Source], depsgraph: bpy.types.Depsgraph, use_hull: bool) -> int:
    """Give ``cache`` the kept shapes of ``sources`` whose geometry is still what was read (read as ``use_hull``
    asks); how many it got."""
    lent = 0
    for source in sources:
        kept = _kept.get(source_key(source))
        if kept is None or kept[1].use_hull != use_hull or cache.has_read(source, use_hull):
            continue
        _source, solid, matrix, stamp = kept
        if geometry_stamp(source, depsgraph) == stamp:
            cache.adopt(source, solid, matrix)
            lent += 1
    return lent


def forget(pointers: set) -> None:
    """Drop the shapes of the objects at ``pointers`` (their geometry changed), as owners or as the objects read."""
    for key in [key for key in _kept if key[0] in pointers or key[1] in pointers]:
        del _kept[key]


def clear() -> None:
    """Drop every kept shape (a file was loaded, undo, or the add-on is unregistered)."""
    _kept.clear()
