"""Separated pairs of an every-pair check as columns: tens of thousands of rows without a Python object each.

The Selected and Active scopes list every pair they measure, separated ones too; with hundreds of
selected objects nearly all of those are far apart and come out of the core's batch as arrays
(``core.mesh.ApartSolids``). They stay arrays until ``analysis.store`` writes them to the scene.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.mesh import ApartSolids
from .exact_numbers import exact_rows


@dataclass(frozen=True)
class SeparatedRows:
    """Pairs measured apart by more than the clearance: the names of their objects, the core's columns
    (signed distance, normal and closest points in world space, float64; method; whether the overlap
    volume is 0 rather than None), each pair's note (``ClashResult.note``: objects measured as their
    hull although not convex), and how sure its volume is and what repairing its objects changed
    (``ClashResult.volume_certainty``, ``volume_error``, ``mesh_note``)."""

    object_a: list[str]
    object_b: list[str]
    columns: ApartSolids
    notes: list[str]
    volume_certainty: list[str]
    volume_error: list[float]
    mesh_notes: list[str]

    def __len__(self) -> int:
        return len(self.object_a)

    def exact_numbers(self) -> np.ndarray:
        """``(K, EXACT_SIZE)`` float64 rows of the results' ``exact`` ID properties: signed distance, normal and
        closest points, the volume's error bound (the overlap volume, depth and distance bounds and region area
        are 0)."""
        pairs = self.columns.pairs
        return exact_rows({"signed_distance": pairs.signed_distance, "normal": pairs.normal,
                           "point_a": pairs.point_a, "point_b": pairs.point_b, "volume_error": self.volume_error},
                          len(self))


def joined(chunks: list[SeparatedRows]) -> SeparatedRows | None:
    """The chunks as one ``SeparatedRows`` (None when there are none)."""
    if not chunks:
        return None
    if len(chunks) == 1:
        return chunks[0]
    return SeparatedRows([name for chunk in chunks for name in chunk.object_a],
                         [name for chunk in chunks for name in chunk.object_b],
                         ApartSolids.joined([chunk.columns for chunk in chunks]),
                         [note for chunk in chunks for note in chunk.notes],
                         [certainty for chunk in chunks for certainty in chunk.volume_certainty],
                         [error for chunk in chunks for error in chunk.volume_error],
                         [note for chunk in chunks for note in chunk.mesh_notes])
