"""Welding: vertices at the same place become one vertex (bit-identical ones, or those on open edges within a
tolerance), so that topology follows the geometry of split-vertex imports.
See docs/architecture.md, section "Mesh: welding".
"""

from __future__ import annotations

import numpy as np

from .topology import label_components

#: SplitMix64's finalizer: shifts and odd multipliers that spread every input bit over the 64-bit key.
_SHIFTS_AND_FACTORS = ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB))
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: The eight staggered grids: every combination of a half-cell shift along each axis.
_SHIFTS = np.array([[x, y, z] for x in (0.0, 0.5) for y in (0.0, 0.5) for z in (0.0, 0.5)])


def exact_representatives(vertices: np.ndarray) -> np.ndarray:
    """(N,) for each vertex the smallest index of a vertex with bit-identical coordinates (-0.0 equals 0.0)."""
    count = len(vertices)
    if count < 2:
        return np.arange(count, dtype=np.int64)
    bits = np.ascontiguousarray(np.asarray(vertices, dtype=np.float64) + 0.0).view(np.uint64).reshape(-1, 3)
    keys = _mixed(_mixed(_mixed(bits[:, 0]) + bits[:, 1]) + bits[:, 2])
    order = np.argsort(keys, kind="stable")  # stable: the smallest index leads each run of equal keys
    ordered_keys = keys[order]
    tied = np.flatnonzero(ordered_keys[1:] == ordered_keys[:-1])
    if not len(tied):
        return np.arange(count, dtype=np.int64)
    if not (bits[order[tied]] == bits[order[tied + 1]]).all():
        return _bit_equal_groups(bits)  # two different positions share a key
    new_run = np.ones(count, dtype=bool)
    new_run[tied + 1] = False
    leader = order[np.flatnonzero(new_run)][np.cumsum(new_run) - 1]
    representative = np.empty(count, dtype=np.int64)
    representative[order] = leader
    return representative


def have_exact_duplicates(clouds: np.ndarray) -> np.ndarray:
    """(K,) for each of the (K, N, 3) ``clouds`` whether two of its vertices have bit-identical coordinates (-0.0
    equals 0.0): ``exact_representatives`` of each is not the identity, for many small clouds in a few numpy calls
    (the same hash keys, sorted cloud by cloud; a cloud with two equal keys is looked at alone)."""
    count, size = clouds.shape[:2]
    found = np.zeros(count, dtype=bool)
    if size < 2:
        return found
    bits = np.ascontiguousarray(np.asarray(clouds, dtype=np.float64) + 0.0).view(np.uint64)
    keys = _mixed(_mixed(_mixed(bits[..., 0]) + bits[..., 1]) + bits[..., 2])
    keys.sort(axis=1)
    for k in np.flatnonzero((keys[:, 1:] == keys[:, :-1]).any(axis=1)).tolist():
        found[k] = not (exact_representatives(clouds[k]) == np.arange(size)).all()
    return found


def _mixed(values: np.ndarray) -> np.ndarray:
    """SplitMix64 of each 64-bit value: keys of positions on a grid or a lathe (coordinates with equal low bits,
    mirrored values) collide no more often than random ones (a product of the coordinates with odd constants,
    XORed, did: Blender's UV spheres hit the slow path)."""
    with np.errstate(over="ignore"):
        values = values + _GOLDEN
        for shift, factor in _SHIFTS_AND_FACTORS:
            values = (values ^ (values >> np.uint64(shift))) * np.uint64(factor)
        return values ^ (values >> np.uint64(31))


def _bit_equal_groups(bits: np.ndarray) -> np.ndarray:
    """``exact_representatives`` by a full lexicographic sort of the coordinates' bits: slower, used only when
    two different positions share a hash key."""
    order = np.lexsort(bits.T[::-1])
    same = (bits[order][1:] == bits[order][:-1]).all(axis=1)
    root, _ = label_components(len(bits), order[:-1][same], order[1:][same])
    return root


def near_representatives(vertices: np.ndarray, candidates: np.ndarray, tolerance: float) -> np.ndarray:
    """(N,) representatives after welding the ``candidates`` (vertex indices) that lie within ``tolerance``.

    Two candidates whose coordinates differ by less than ``tolerance`` along every axis share a cell of side
    ``2 * tolerance`` in at least one of eight grids shifted by half a cell along each combination of axes, and
    are welded; candidates welded this way lie within ``2 * tolerance`` along every axis of a neighbour (chains
    of neighbours are welded together). Each group's representative is its smallest vertex index.
    """
    count = len(vertices)
    representative = np.arange(count, dtype=np.int64)
    candidates = np.asarray(candidates, dtype=np.int64)
    if len(candidates) < 2 or not tolerance > 0.0:
        return representative
    points = vertices[candidates]
    cell = 2.0 * tolerance
    scaled = (points - points.min(axis=0)) / cell
    first, second = [], []
    for shift in _SHIFTS:
        cells = np.floor(scaled + shift).astype(np.int64)
        _, key = np.unique(cells, axis=0, return_inverse=True)
        key = key.reshape(-1)
        order = np.argsort(key, kind="stable")
        same = key[order][1:] == key[order][:-1]
        first.append(order[:-1][same])
        second.append(order[1:][same])
    root, _ = label_components(len(candidates), np.concatenate(first), np.concatenate(second))
    representative[candidates] = candidates[root]  # roots are the smallest local index, so the smallest vertex
    return representative
