"""What repairing an object's triangles changed, and how sure a pair's overlap volume is, as a result says it.

The core repairs every object before classifying it (``core.mesh.repair``: coincident vertices welded, nearly
closed meshes capped); the notes name what changes a number's meaning (open and non-manifold edges, parts or
faces turned over, faces ignored), so that no repair is silent.
"""

from __future__ import annotations

import numpy as np

from ..core.mesh import MESH, Solid
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


def volume_certainty(a: Solid, b: Solid, has_volume: bool, parts_error: float = 0.0) -> tuple[str, float]:
    """``(certainty, error)`` of the pair's overlap volume: 'none' without a volume (an open object, hulls);
    'approximate' when either object is nearly closed, the error the sum of theirs (world units³: each object's
    capped holes change the shared volume by at most what they change its own), or when the space overlapping
    parts share was bounded, not measured (``parts_error``: ``SolidContact.volume_error``, added); else 'exact', 0."""
    if not has_volume:
        return NONE, 0.0
    if APPROXIMATE in (a.volume_certainty, b.volume_certainty) or parts_error > 0.0:
        error = parts_error
        if APPROXIMATE in (a.volume_certainty, b.volume_certainty):
            error += a.volume_error + b.volume_error
        return APPROXIMATE, error
    return EXACT, 0.0


def parts_note(a: Solid, b: Solid, parts_error: float) -> str:
    """"Bracket: parts overlap; shared space measured approximately" for each object whose parts overlap, when the
    pair's volume bounds their shared space (``parts_error`` positive) instead of measuring it; when neither
    object's parts overlap, the bound was for a part crossing itself: "Knot: may cross itself; space covered twice
    measured approximately" for each non-convex object ('' otherwise)."""
    if not parts_error > 0.0:
        return ""
    if a.part_overlaps or b.part_overlaps:
        return "; ".join(f"{solid.name}: parts overlap; shared space measured approximately"
                         for solid in (a, b) if solid.part_overlaps)
    return "; ".join(f"{solid.name}: may cross itself; space covered twice measured approximately"
                     for solid in (a, b) if solid.method == MESH)


def rows_certainty_and_notes(solids: list[Solid], pairs: np.ndarray, has_volume: np.ndarray
                             ) -> tuple[list[str], list[float], list[str]]:
    """``volume_certainty`` and ``pair_note`` of many pairs at once (``pairs`` (K, 2): indices into ``solids``;
    ``has_volume`` (K,)): ``(certainties, errors, notes)``, each object asked once however many pairs it is in."""
    used, inverse = np.unique(pairs, return_inverse=True)
    inverse = inverse.reshape(-1, 2)
    approximate = np.array([solids[k].volume_certainty == APPROXIMATE for k in used.tolist()], dtype=bool)
    errors = np.array([solids[k].volume_error for k in used.tolist()], dtype=np.float64)
    notes = [object_note(solids[k]) for k in used.tolist()]
    has_volume = np.asarray(has_volume, dtype=bool)
    nearly = approximate[inverse].any(axis=1) & has_volume
    certainties = np.where(has_volume, np.where(nearly, APPROXIMATE, EXACT), NONE).tolist()
    pair_errors = np.where(nearly, errors[inverse].sum(axis=1), 0.0).tolist()
    pair_notes = [""] * len(pairs)
    for row in np.flatnonzero(np.array([bool(note) for note in notes], dtype=bool)[inverse].any(axis=1)).tolist():
        first, second = inverse[row].tolist()
        pair_notes[row] = "; ".join(filter(None, (notes[first], notes[second])))
    return certainties, pair_errors, pair_notes
