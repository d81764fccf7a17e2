"""The results list's order and filter, and the region around a contact to frame.

``visible_order`` is the one definition of what the results list shows and in which order; the list
(``ui.panel``), the overlay and the Next/Previous operators all use it.
"""

from __future__ import annotations

import numpy as np

#: The framed box around a contact is at least this wide (world units), so touching pairs stay visible.
MIN_FRAME_SIZE = 0.1


def _sort_key(sort_by: str):
    if sort_by == 'DEPTH':
        return lambda item: item[1].signed_distance
    if sort_by == 'DISTANCE':
        return lambda item: abs(item[1].signed_distance)
    return lambda item: (item[1].name_a, item[1].name_b)


def visible_order(results, sort_by: str, statuses: set, hide_touching: bool, reverse: bool = False) -> list[int]:
    """Indices of the results to list, in list order.

    Kept: results whose status is in ``statuses`` (and not 'touching' with ``hide_touching``). Order:
    'NAME' by object names, 'DEPTH' deepest first, 'DISTANCE' closest to contact first; ties keep the
    stored order. ``reverse`` flips it.
    """
    shown = [(index, result) for index, result in enumerate(results)
             if result.status in statuses and not (hide_touching and result.status == 'touching')]
    shown.sort(key=_sort_key(sort_by), reverse=reverse)
    return [index for index, _result in shown]


def settings_order(settings) -> list[int]:
    """``visible_order`` with the list settings stored in the scene."""
    return visible_order(settings.results, settings.sort_by, set(settings.show_statuses), settings.hide_touching)


def contact_frame(point_a, point_b, signed_distance: float, min_size: float = MIN_FRAME_SIZE) -> tuple:
    """``(centre, radius)`` of the region to frame: the box around both witness points, padded on
    every side by |signed distance| (the depth or the gap) and at least ``min_size`` wide."""
    points = np.array([point_a, point_b], dtype=float)
    pad = abs(signed_distance)
    low, high = points.min(axis=0) - pad, points.max(axis=0) + pad
    centre = 0.5 * (low + high)
    half = np.maximum(0.5 * (high - low), 0.5 * min_size)
    return tuple(centre), float(np.linalg.norm(half))
