"""Self-intersection results on the scene: one ``self_checks`` item per object checked, and the crossing
segments of all of them as two ID properties of the settings (``self_check_points``: the segments' ends,
flat; ``self_check_owners``: each segment's item), saved with the .blend and read back as arrays."""

from __future__ import annotations

import numpy as np

from .self_check import CheckedObject


def store_self_checks(settings, checked: list[CheckedObject]) -> None:
    """Replace the stored self-intersection results with ``checked``'s."""
    settings.self_checks.clear()
    points, owners = [], []
    for index, item in enumerate(checked):
        result = item.result
        stored = settings.self_checks.add()
        stored.object, stored.name = item.source.owner, result.object
        stored.triangles, stored.face_pairs, stored.coplanar_pairs = result.triangles, result.face_pairs, \
            result.coplanar_pairs
        stored.faces, stored.curves, stored.closed = result.faces, result.curves, result.closed
        stored.covered_twice_measured = result.covered_twice_volume is not None
        stored.covered_twice_volume = result.covered_twice_volume or 0.0
        segments = np.asarray(result.segments, dtype=np.float64).reshape(-1, 6)
        points.append(segments.ravel())
        owners.append(np.full(len(segments), index, dtype=np.int64))
    settings["self_check_points"] = np.concatenate(points).tolist() if points else []
    settings["self_check_owners"] = np.concatenate(owners).tolist() if owners else []


def clear_self_checks(settings) -> None:
    settings.self_checks.clear()
    settings["self_check_points"], settings["self_check_owners"] = [], []


def stored_segments(settings) -> tuple[np.ndarray, np.ndarray]:
    """``(segment ends (S, 2, 3), owner item (S,))`` as stored."""
    points = np.asarray(settings.get("self_check_points", ()), dtype=np.float64).reshape(-1, 2, 3)
    return points, np.asarray(settings.get("self_check_owners", ()), dtype=np.int64)
