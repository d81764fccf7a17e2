"""Vertices whose star (the faces around them) is certified embedded: no two of its faces pass through each other,
so the self-check need not test the face pairs that share such a vertex.

A star is certified when, seen along one axis, every face turns the same way (exact signs) and the faces wind once
around the vertex; then their shadows do not overlap, so the faces meet only where they share corners or edges.
See docs/architecture.md, section "Mesh: self-intersections".
"""

from __future__ import annotations

import numpy as np

from ..steps import checkpoint
from ..vector.arrays import NEXT_CORNER
from .trimesh import TriangleMesh

#: A shadow's orientation (a 2 x 2 determinant of coordinate differences) is taken from its float value when that
#: exceeds this times the sum of its two products' sizes: three times Shewchuk's bound for orient2d (3.3e-16).
ORIENTATION_FILTER = 1e-15
#: Products outside this window (underflow, overflow) decide nothing: the vertex is left to the face pair tests.
PRODUCT_WINDOW = (1e-200, 1e200)


def embedded_stars(mesh: TriangleMesh) -> np.ndarray:
    """(N,) bool: the vertices whose faces are certified to meet one another only at their shared corners and
    edges (never crossing, never overlapping in area).

    Seen along the axis where the faces' summed normal is largest, a vertex is certified when: every face
    around it casts a shadow turning the same way (the exact sign of the normal's component on that axis);
    every edge at it is used as often in one direction as in the other (``balanced_vertices``: the faces' outer
    edges close up); and exactly one face's shadow meets the ray from the vertex along the shadow plane's first
    axis (exact comparisons of coordinates). The outer edges then form closed loops, each turning forward
    around the vertex at every step and so crossing the ray at least once; one crossing in all leaves a single
    loop winding once, a simple polygon, so the shadows cover every point at most once and two faces cannot
    share an interior point.
    """
    triangles = mesh.triangles
    count = len(mesh.vertices)
    if not len(triangles):
        return np.zeros(count, bool)
    # coordinate k of corner c of every face, one contiguous row each
    coordinates = np.ascontiguousarray(mesh.corners.transpose(2, 1, 0))
    first, second = coordinates[:, 1] - coordinates[:, 0], coordinates[:, 2] - coordinates[:, 0]
    low, high = PRODUCT_WINDOW
    # per face and axis: the exact sign of its normal's component (its shadow's turn seen along it), 0 when unsure
    signs, sums = [], np.zeros((3, count))
    for axis in range(3):
        checkpoint()  # (a cancelled caller's worker stops here, and below)
        u, w = (axis + 1) % 3, (axis + 2) % 3
        left, right = first[u] * second[w], first[w] * second[u]
        value, size = left - right, np.abs(left) + np.abs(right)
        signs.append(np.where((np.abs(value) > ORIENTATION_FILTER * size) & (size > low) & (size < high),
                              np.sign(value), 0.0))
        sums[axis] = sum(np.bincount(triangles[:, c], weights=value, minlength=count) for c in range(3))
    axis_of = np.argmax(np.abs(sums), axis=0)
    turn_of = np.sign(sums[axis_of, np.arange(count)])
    # per corner: 1 when its face's shadow meets the ray from the vertex along the shadow plane's first axis (its
    # edge from the next corner to the previous one crosses the ray; an edge starting on the ray counts, one ending
    # there does not), far more when the face turns the wrong way or the vertex's faces give it no turn
    crossings = np.zeros(count)
    for c in range(3):
        checkpoint()
        vertex = triangles[:, c]
        axis, turn = axis_of[vertex], turn_of[vertex]
        x, y = axis == 0, axis == 1
        across = [np.where(x, coordinates[2, k], np.where(y, coordinates[0, k], coordinates[1, k]))
                  for k in (c, (c + 1) % 3, (c + 2) % 3)]  # each corner's coordinate across that ray
        start, end = np.where(turn > 0, across[1], across[2]), np.where(turn > 0, across[2], across[1])
        meets = (start <= across[0]) & (across[0] < end)
        wrong = (np.where(x, signs[0], np.where(y, signs[1], signs[2])) != turn) | (turn == 0)
        crossings += np.bincount(vertex, weights=meets + 4.0 * wrong, minlength=count)
    checkpoint()
    return (crossings == 1.0) & balanced_vertices(triangles, count)


def balanced_vertices(triangles: np.ndarray, count: int) -> np.ndarray:
    """(N,) bool: the vertices each of whose edges is used by as many faces one way as the other."""
    tails, heads = triangles.ravel(), triangles[:, NEXT_CORNER].ravel()
    if count >= 2 ** 31:
        raise ValueError(f"too many vertices ({count}) for 63-bit edge keys")
    low, high = np.minimum(tails, heads), np.maximum(tails, heads)
    keys = np.sort(((low * count + high) << 1) | (tails > heads))  # an edge's uses, those running down last
    edge = keys >> 1
    starts = np.flatnonzero(np.r_[True, edge[1:] != edge[:-1]])
    down = np.add.reduceat(keys & 1, starts)
    uneven = edge[starts[2 * down != np.diff(np.r_[starts, len(keys)])]]
    balanced = np.ones(count, bool)
    balanced[uneven // count] = False
    balanced[uneven % count] = False
    return balanced
