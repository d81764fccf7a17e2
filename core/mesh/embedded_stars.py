"""Vertices whose star (the faces around them) is certified embedded: no two of its faces pass through each other,
so the self-check need not test the face pairs that share such a vertex.

A star is certified when, seen along one axis, every face turns the same way (exact signs) and the faces wind once
around the vertex; then their shadows do not overlap, so the faces meet only where they share corners or edges.
See docs/architecture.md, section "Mesh: self-intersections".
"""

from __future__ import annotations

import numpy as np

from ..vector.arrays import NEXT_CORNER, PREVIOUS_CORNER
from .topology import edge_table
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
    every edge at it is used as often in one direction as in the other (the faces' outer edges close up); and
    the shadows' angles at the vertex add up to one turn. The outer edges then form closed loops each winding
    at least once around the vertex; one turn in all leaves one loop, visited in angular order, so the shadows
    cover every point at most once and two faces cannot share an interior point. The angles are floats, each
    within about 1e-15 of its exact value, and the exact sum is a whole number of turns, so rounding decides it.
    """
    triangles = mesh.triangles
    count = len(mesh.vertices)
    if not len(triangles):
        return np.zeros(count, bool)
    # coordinate k of corner c of every face, one contiguous row each, and the edges from corner c to corner c + 1
    coordinates = np.ascontiguousarray(mesh.corners.transpose(2, 1, 0))
    edges = coordinates[:, NEXT_CORNER] - coordinates
    low, high = PRODUCT_WINDOW
    # per face and axis: the exact sign of its normal's component (its shadow's turn seen along it), 0 when unsure
    signs, sums = [], np.zeros((3, count))
    for axis in range(3):
        left, right = _products(edges[:, 0], -edges[:, 2], axis)
        value, size = left - right, np.abs(left) + np.abs(right)
        signs.append(np.where((np.abs(value) > ORIENTATION_FILTER * size) & (size > low) & (size < high),
                              np.sign(value), 0.0))
        sums[axis] = sum(np.bincount(triangles[:, c], weights=value, minlength=count) for c in range(3))
    axis_of = np.argmax(np.abs(sums), axis=0)
    expected = np.sign(sums[axis_of, np.arange(count)])
    # per corner: its shadow's angle at the vertex, or two turns when its face turns the wrong way
    angles = np.zeros(count)
    for c in range(3):
        vertex = triangles[:, c]
        axis = axis_of[vertex]
        x, y = axis == 0, axis == 1
        ahead, behind = edges[:, c], -edges[:, (c + 2) % 3]
        sines, cosines = [], []
        for k in range(3):
            left, right = _products(ahead, behind, k)
            sines.append(left - right)
            u, w = (k + 1) % 3, (k + 2) % 3
            cosines.append(ahead[u] * behind[u] + ahead[w] * behind[w])
        turn = np.where(x, signs[0], np.where(y, signs[1], signs[2]))
        sine = np.abs(np.where(x, sines[0], np.where(y, sines[1], sines[2])))
        cosine = np.where(x, cosines[0], np.where(y, cosines[1], cosines[2]))
        size = sine + np.abs(cosine)  # about |ahead| |behind| in the shadow
        wrong = (turn != expected[vertex]) | ~((size > low) & (size < high))
        angles += np.bincount(vertex, weights=np.where(wrong, 4.0 * np.pi, np.arctan2(sine, cosine)), minlength=count)
    # every edge at the vertex balanced: as many faces run along it one way as the other
    table = edge_table(mesh)
    balanced = np.ones(count, bool)
    balanced[table.edges[2 * table.forward_uses != table.uses].ravel()] = False
    return balanced & (np.abs(angles / (2.0 * np.pi) - 1.0) < 0.25)


def _products(first: np.ndarray, second: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """The two products whose difference is the ``axis`` component of ``first x second`` ((3, M) rows of
    coordinates): the 2 x 2 determinant of their shadows seen along that axis."""
    u, w = (axis + 1) % 3, (axis + 2) % 3
    return first[u] * second[w], first[w] * second[u]
