"""Overlap volumes of pairs of solids: pairs convex to rounding clipped together, objects whose parts overlap
each other part by part (``parts_union``: their union counted once, or bounded), the others from their surfaces;
a part that may cover the shared box twice (``sheets.single_cover``) cut with its own crossings."""

from __future__ import annotations

import numpy as np

from ..convex_volume import convex_overlap_volumes
from ..intersection import CrossingRows
from ..parts_union import cut_overlap, union_overlap
from ..sheets import single_cover, single_covers, stars_shaped
from ..solid import CONVEX, HULL, Solid
from ..volume import overlap_volume, overlap_volumes
from ..volume_bounds import overlap_bounds
from .result import pair_method


#: An object with at most this many triangles, or whose box the pair's shared box holds this share of, is proved to
#: cover space at most once as a whole, once (see ``_covers_once``).
WHOLE_TRIANGLES = 5_000
WHOLE_SHARE = 0.25

#: A pair's ``(volume, centroid, error)``: ``error`` bounds how far the volume may be from the true one (0: exact).
PairVolume = tuple[float | None, np.ndarray | None, float]


def pair_volume(a: Solid, b: Solid) -> PairVolume:
    """Overlap volume, centroid and error bound of two closed objects (volume None when either has no inside);
    exact (error 0) unless the surfaces' cut gives up for non-convex parts that overlap each other or cross
    themselves (``parts_union.union_overlap``, ``_cut_volume``)."""
    return pair_volumes([(a, b)])[0]


def pair_volumes(pairs: list[tuple[Solid, Solid]], crossed: list[CrossingRows | None] | None = None
                 ) -> list[PairVolume]:
    """``pair_volume`` of every pair; pairs of objects convex to rounding (``Solid.exactly_convex``: face planes
    bound them exactly) are clipped together (``convex_overlap_volumes``), the others measured together on their
    surfaces (``overlap_volumes``, with each pair's surface crossings where ``crossed`` has them kept)."""
    answers: list[PairVolume | None] = [
        (None, None, 0.0) if pair_method(a, b) == HULL or not (a.closed and b.closed) else None for a, b in pairs]
    for k, (a, b) in enumerate(pairs):
        if answers[k] is None and (a.part_overlaps or b.part_overlaps):
            answers[k] = _union_volume(a, b)
    convex = [k for k, (a, b) in enumerate(pairs) if answers[k] is None and a.exactly_convex and b.exactly_convex]
    for k, answer in zip(convex, convex_overlap_volumes([(pairs[k][0].mesh, pairs[k][1].mesh) for k in convex])):
        answers[k] = (*answer, 0.0)
    _prove_whole([(solid, None, *_common_box(a, b)) for k, (a, b) in enumerate(pairs) if answers[k] is None
                  for solid in (a, b) if solid.method != CONVEX and None not in _proved(solid)])
    for k, (a, b) in enumerate(pairs):
        if answers[k] is None and not _surfaces_cover_once(a, b):
            answers[k] = _cut_volume(a, b, *_common_box(a, b))
    rest = [k for k, answer in enumerate(answers) if answer is None]
    for k, answer in zip(rest, overlap_volumes([(pairs[k][0].mesh, pairs[k][1].mesh) for k in rest],
                                               None if crossed is None else [crossed[k] for k in rest])):
        answers[k] = (*answer, 0.0)
    return answers


def _surfaces_cover_once(a: Solid, b: Solid) -> bool:
    """Whether each object covers the pair's shared box at most once, so that its overlap volume may be taken from
    the surfaces (``overlap_volume``, inside by parity); if not, the surfaces are cut with their own crossings
    (``_cut_volume``). Objects already proved need no box."""
    if all(solid.method == CONVEX or _proved(solid).get(None) for solid in (a, b)):
        return True
    low, high = _common_box(a, b)
    return all(solid.method == CONVEX or _covers_once(solid, None, low, high) for solid in (a, b))


def _union_volume(a: Solid, b: Solid) -> PairVolume:
    """The overlap of two closed objects, one of them made of parts that share interior, each taken as the union
    of its parts (``parts_union.union_overlap``: exact, or with a bound on how much shared space was counted twice);
    cut with the parts' own crossings when a part may cover the common box twice (``_cut_volume``)."""
    low, high = _common_box(a, b)
    if not all(part.convex or _covers_once(solid, k, low, high) for solid in (a, b)
               for k, part in enumerate(solid.parts)):
        return _cut_volume(a, b, low, high)
    return union_overlap([part.mesh for part in a.parts], [part.convex for part in a.parts], a.part_overlaps,
                         [part.mesh for part in b.parts], [part.convex for part in b.parts], b.part_overlaps,
                         lambda: (a.own_crossings, b.own_crossings))


def _common_box(a: Solid, b: Solid) -> tuple[np.ndarray, np.ndarray]:
    """Where the two objects' boxes meet: their overlap lies in it."""
    (low_a, high_a), (low_b, high_b) = a.bounds, b.bounds
    return np.maximum(low_a, low_b), np.minimum(high_a, high_b)


def _covers_once(solid: Solid, part: int | None, low: np.ndarray, high: np.ndarray) -> bool:
    """Whether the object's mesh (``part`` None) or one of its parts covers the box at most once. Proved over the
    whole mesh once per object (``_prove_whole``: kept on it, shared by moved copies, as an affine map keeps
    windings) when the mesh is small (``WHOLE_TRIANGLES``) or the box holds much of it (``WHOLE_SHARE``); else, or
    when that fails, for the box alone."""
    proved = _proved(solid)
    if proved.get(part):
        return True
    if _whole_wanted(solid, part, low, high) and part not in proved:
        _prove_whole([(solid, part, low, high)])
        if proved[part]:
            return True
    mesh = solid.mesh if part is None else solid.parts[part].mesh
    return single_cover(mesh, low, high)


def _prove_whole(wanted: list[tuple[Solid, int | None, np.ndarray, np.ndarray]]) -> None:
    """Prove, for each ``(solid, part, low, high)`` whose box asks for it (``_whole_wanted``) and not yet proved,
    whether its whole mesh covers space at most once, all together: ``sheets.stars_shaped`` first, then
    ``sheets.single_covers`` for the others; the answers kept on the objects (``_proved``)."""
    todo: dict[tuple[int, int | None], tuple[Solid, int | None]] = {}
    for solid, part, low, high in wanted:
        source = solid.placement[0]
        if part not in _proved(source) and _whole_wanted(solid, part, low, high):
            todo.setdefault((id(source), part), (source, part))
    if not todo:
        return
    meshes = [source.mesh if part is None else source.parts[part].mesh for source, part in todo.values()]
    covers = stars_shaped(meshes)
    rest = np.flatnonzero(~covers)
    covers[rest] = single_covers([meshes[k] for k in rest])
    for (source, part), once in zip(todo.values(), covers.tolist()):
        _proved(source)[part] = once


def _proved(solid: Solid) -> dict[int | None, bool]:
    """Whether the whole mesh (key None) or part k (key k) of the object's source (moved copies share it) is proved
    to cover space at most once, for those tried."""
    return solid.placement[0].__dict__.setdefault("_covers_once", {})


def _whole_wanted(solid: Solid, part: int | None, low: np.ndarray, high: np.ndarray) -> bool:
    """Whether the whole mesh is worth proving for the box ``[low, high]``: it is small, or the box holds much of it."""
    mesh = solid.mesh if part is None else solid.parts[part].mesh
    if len(mesh.triangles) <= WHOLE_TRIANGLES:
        return True
    mesh_low, mesh_high = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    inner = np.maximum(np.minimum(high, mesh_high) - np.maximum(low, mesh_low), 0.0)
    return bool(np.prod(inner) >= WHOLE_SHARE * np.prod(mesh_high - mesh_low))


def _cut_volume(a: Solid, b: Solid, low: np.ndarray, high: np.ndarray) -> PairVolume:
    """The overlap of two closed objects whose parts may cross themselves: their surfaces cut along every crossing,
    their own included (``parts_union.cut_overlap``), exact; when the cut gives up, the surfaces' volume clamped to
    where the overlap is proved to lie (``volume_bounds.overlap_bounds``), the error what those bounds leave."""
    measured = cut_overlap([part.mesh for part in a.parts], [part.mesh for part in b.parts],
                           lambda: (a.own_crossings, b.own_crossings))
    if measured is not None:
        return (*measured, 0.0)
    volume, centroid = overlap_volume(a.mesh, b.mesh)
    least, most = overlap_bounds(a, b, low, high)
    volume = min(max(volume, least), most)
    return volume, centroid, max(volume - least, most - volume)
