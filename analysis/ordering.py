"""The results list's order and filter, and the region around a contact to frame.

``visible_order`` is the one definition of what the results list shows and in which order; the list
(``ui.panel``), the overlay and the Next/Previous operators all use it. Stored results are read a
whole column at a time (``foreach_get``), so 50,000 results cost milliseconds, not a Python loop.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .tracking import results_generation

#: The framed box around a contact is at least this wide (world units), so touching pairs stay visible.
MIN_FRAME_SIZE = 0.1

_order_cache: dict = {}


def number_column(results, name: str, size: int = 1, dtype: type = np.float64) -> np.ndarray:
    """Property ``name`` of every result as ``dtype`` (``(N,)`` or ``(N, size)``): ``foreach_get`` on stored
    results (float32, as they are stored, is its fastest path), attribute reads on other sequences (plain
    objects standing in for them)."""
    if hasattr(results, "foreach_get"):
        values = np.empty(len(results) * size, dtype=dtype)
        results.foreach_get(name, values)
    else:
        values = np.array([getattr(result, name) for result in results], dtype=dtype)
    return values.reshape(-1, size) if size > 1 else values.reshape(-1)


def enum_column(results, name: str) -> np.ndarray:
    """Enum property ``name`` of every result as an array of identifiers ('penetrating', 'new', ...)."""
    if not hasattr(results, "foreach_get"):
        return np.array([getattr(result, name) for result in results], dtype=object)
    if not len(results):
        return np.empty(0, dtype=object)
    items = results[0].bl_rna.properties[name].enum_items
    identifiers = np.empty(max(item.value for item in items) + 1, dtype=object)
    for item in items:
        identifiers[item.value] = item.identifier
    values = np.empty(len(results), dtype=np.int32)
    results.foreach_get(name, values)
    return identifiers[values]


def visible_statuses(statuses_shown: set, hide_touching: bool) -> set:
    """The statuses the list shows: those chosen, without 'touching' when Hide Touching is on."""
    return set(statuses_shown) - ({'touching'} if hide_touching else set())


def visible_order(results, sort_by: str, statuses: set, hide_touching: bool) -> list[int]:
    """Indices of the results to list, in list order.

    Kept: results whose status is in ``statuses`` (and not 'touching' with ``hide_touching``). Order:
    'NAME' by object names (as analysed), 'DEPTH' deepest first, 'DISTANCE' closest to contact first;
    ties keep the stored order.
    """
    listed = np.array(sorted(visible_statuses(statuses, hide_touching)), dtype=object)
    shown = np.flatnonzero(np.isin(enum_column(results, "status"), listed))
    if sort_by == 'NAME':
        names = [(result.name_a, result.name_b) for result in results]
        return sorted(shown.tolist(), key=names.__getitem__)
    signed = number_column(results, "signed_distance_view")[shown]
    return shown[np.argsort(signed if sort_by == 'DEPTH' else np.abs(signed), kind='stable')].tolist()


def settings_order(settings) -> list[int]:
    """``visible_order`` with the list settings stored in the scene, cached until the results change
    (``tracking.results_generation``) or the list settings do: the list asks on every sidebar redraw."""
    results = settings.results
    key = (results_generation(), settings.as_pointer(), len(results), settings.sort_by,
           frozenset(settings.show_statuses), settings.hide_touching)
    if _order_cache.get("key") != key:
        _order_cache["order"] = visible_order(results, settings.sort_by, set(settings.show_statuses),
                                              settings.hide_touching)
        _order_cache["key"] = key
    return list(_order_cache["order"])


def contact_frame(point_a: Sequence[float], point_b: Sequence[float], signed_distance: float,
                  min_size: float = MIN_FRAME_SIZE) -> tuple[tuple[float, ...], float]:
    """``(centre, radius)`` of the region to frame: the box around both witness points, padded on
    every side by |signed distance| (the depth or the gap) and at least ``min_size`` wide."""
    points = np.array([point_a, point_b], dtype=float)
    pad = abs(signed_distance)
    low, high = points.min(axis=0) - pad, points.max(axis=0) + pad
    centre = 0.5 * (low + high)
    half = np.maximum(0.5 * (high - low), 0.5 * min_size)
    return tuple(centre), float(np.linalg.norm(half))
