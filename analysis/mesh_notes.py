"""What repairing an object's triangles changed, and how sure a pair's overlap volume is, as a result says it.

The core repairs every object before classifying it (``core.mesh.repair``: coincident vertices welded, nearly
closed meshes capped); the notes name what changes a number's meaning (open and non-manifold edges, parts or
faces turned over, faces ignored), so that no repair is silent.
"""

from __future__ import annotations

from ..core.mesh import Solid
from ..core.mesh.repair import APPROXIMATE, EXACT, NONE


def _counted(count: int, singular: str, plural: str) -> str:
    return f"{count} {singular if count == 1 else plural}"


def object_note(solid: Solid) -> str:
    """"Crate: 12 open edges (3 holes capped), 2 degenerate faces ignored" ('' when nothing was changed or hulls
    were asked for)."""
    if solid.use_hull:
        return ""
    repair, notes = solid.repair, []
    if repair.open_edges:
        holes = f" ({_counted(repair.holes, 'hole', 'holes')} capped)" if repair.holes else ""
        notes.append(_counted(repair.open_edges, "open edge", "open edges") + holes)
    if repair.non_manifold_edges:
        notes.append(_counted(repair.non_manifold_edges, "non-manifold edge", "non-manifold edges"))
    if solid.turned_parts:
        notes.append(_counted(solid.turned_parts, "inside-out part turned over", "inside-out parts turned over"))
    if repair.turned_faces:
        notes.append(_counted(repair.turned_faces, "face turned to match its neighbours",
                              "faces turned to match their neighbours"))
    if repair.degenerate_faces:
        notes.append(_counted(repair.degenerate_faces, "degenerate face ignored", "degenerate faces ignored"))
    if repair.duplicate_faces:
        notes.append(_counted(repair.duplicate_faces, "repeated face ignored", "repeated faces ignored"))
    return f"{solid.name}: {', '.join(notes)}" if notes else ""


def pair_note(a: Solid, b: Solid) -> str:
    """Both objects' notes, '; '-separated ('' when neither has one)."""
    return "; ".join(filter(None, (object_note(a), object_note(b))))


def volume_certainty(a: Solid, b: Solid, has_volume: bool) -> tuple[str, float]:
    """``(certainty, error)`` of the pair's overlap volume: 'none' without a volume (an open object, hulls);
    'approximate' when either object is nearly closed, the error the sum of theirs (world units³: each object's
    capped holes change the shared volume by at most what they change its own); else 'exact', 0."""
    if not has_volume:
        return NONE, 0.0
    if APPROXIMATE in (a.volume_certainty, b.volume_certainty):
        return APPROXIMATE, a.volume_error + b.volume_error
    return EXACT, 0.0
