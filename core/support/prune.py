"""The points of a cloud strictly inside its convex hull, by a cheap exact test (tetrahedra of an inner polytope):
dropping them changes no support query.
See docs/architecture.md, section "Support queries: pruning interior points".
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from ..steps import checkpoint
from ..vector.arrays import cross, dot, product_in_pieces

_GOLDEN = (1.0 + 5.0 ** 0.5) / 2.0


def _directions() -> np.ndarray:
    """The 26 directions of a cube's faces, edges and corners, and the 24 of the cyclic
    permutations of (0, ±1/φ, ±φ) and (0, ±1, ±φ) (dodecahedron and icosahedron vertices)."""
    cube = [d for d in itertools.product((-1.0, 0.0, 1.0), repeat=3) if any(d)]
    cyclic = []
    for small, large in ((1.0 / _GOLDEN, _GOLDEN), (1.0, _GOLDEN)):
        for s, t in itertools.product((-1.0, 1.0), repeat=2):
            p = (0.0, s * small, t * large)
            cyclic += [p, (p[2], p[0], p[1]), (p[1], p[2], p[0])]
    return np.array(cube + cyclic)


_DIRECTIONS = _directions()
_CUBE = 26  # the first directions: a cube's faces, edges and corners (a cheaper first look)


def _spread(count: int) -> np.ndarray:
    """``count`` unit directions spread evenly over the sphere (a Fibonacci lattice)."""
    k = np.arange(count) + 0.5
    polar, turn = np.arccos(1.0 - 2.0 * k / count), np.pi * (1.0 + 5.0 ** 0.5) * k
    return np.column_stack([np.cos(turn) * np.sin(polar), np.sin(turn) * np.sin(polar), np.cos(polar)])


#: Directions along which ``_beyond_supports`` looks for points beyond the supports.
_SPREAD = _spread(128)
#: Every triple of indices below len(_DIRECTIONS), in lexicographic order.
_TRIPLES = np.array(list(itertools.combinations(range(len(_DIRECTIONS)), 3)))
#: Margin of the barycentric test: far above its rounding for the tetrahedra kept.
_MARGIN = 1e-9
#: Tetrahedra flatter than this (volume relative to the cloud's radius cubed) are not used.
_MIN_VOLUME = 1e-6
#: Points tested per chunk (bounds the temporaries).
_CHUNK = 65_536
#: The whole cloud is tested only when this share of an evenly strided sample of it is inside.
WORTH_TESTING = 0.25
_SAMPLE = 4096
#: Relative margin (of the coordinates' reach) by which a sample point must lie beyond the supports along some
#: direction to count as outside their hull (``_beyond_supports``).
_BEYOND_MARGIN = 1e-9


def inner_facets(support: np.ndarray) -> np.ndarray:
    """Triangles (F, 3, 3) spanning the hull facets of at most 50 points around the origin (brute
    force over all triples).

    Only triangles whose plane passes at a positive distance from the origin are returned, oriented
    so that their normal ``(b - a) x (c - a)`` points away from it.
    """
    a, b, c = (support[column] for column in _triple_columns(len(support)))
    normal = np.cross(b - a, c - a)
    offset = np.einsum("fj,fj->f", normal, a)
    heights = support @ normal.T  # (points, triples): <= 0 for all points on a facet, less the offsets ...
    heights -= offset  # (... taken in place: a second array this size costs its first touch of fresh pages again)
    slack = 1e-12 * np.abs(support).max() * np.linalg.norm(normal, axis=1)
    facet = ((heights <= slack).all(axis=0) & (offset > 0.0)) | ((heights >= -slack).all(axis=0) & (offset < 0.0))
    triangles = np.stack([a, b, c], axis=1)[facet]
    flip = offset[facet] < 0.0
    triangles[flip] = triangles[flip][:, [0, 2, 1]]
    return triangles


@cache
def _triple_columns(count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three columns (each contiguous) of the rows of ``_TRIPLES`` whose indices are all below ``count``."""
    triples = _TRIPLES[_TRIPLES[:, 2] < count]
    return tuple(np.ascontiguousarray(triples[:, k]) for k in range(3))


def interior_points(points: np.ndarray) -> np.ndarray:
    """Boolean mask of the points certainly strictly inside the convex hull of ``points``.

    All False when fewer than ``WORTH_TESTING`` of an evenly strided sample test inside the hull of
    the sample's own supports (a surface-like cloud, where the test would cost more than it saves).
    """
    inside = np.zeros(len(points), dtype=bool)
    sample = points[:: max(1, len(points) // _SAMPLE)]
    if np.count_nonzero(_beyond_supports(sample)) > (1.0 - WORTH_TESTING) * len(sample):
        return inside  # (surely what the sample's fan test below finds, for a fifth of its cost)
    test = _fan_test(sample, sample, _CUBE)
    if test is None or test(sample).mean() < WORTH_TESTING:
        return inside
    test = _fan_test(points, sample, len(_DIRECTIONS))
    for start in range(0, len(points), _CHUNK):
        checkpoint()  # (a cancelled caller's worker stops here)
        inside[start:start + _CHUNK] = test(points[start:start + _CHUNK])
    return inside


def _beyond_supports(sample: np.ndarray) -> np.ndarray:
    """Mask of the ``sample`` points certainly outside the hull of its supports along the cube's directions (the fan
    test's first look), so outside every tetrahedron of that test: those whose value along some direction is above
    every support's by far more than rounding, each point's own direction from the supports' centre tried first,
    then ``_SPREAD``'s. On surface-like clouds (a sphere's or a sculpt's vertices) most points are found outside."""
    supports = _supports(sample, _DIRECTIONS[:_CUBE])
    reach = float(np.abs(sample).max()) if len(sample) else 0.0
    # Each product's rounding is far below 1e-12 of |d| times the coordinates' reach; the margin is well above it
    # and above the fan's facets' slack (a nearly flat facet may stand that far out of the hull).
    radial = sample - supports.mean(axis=0)
    beyond = dot(radial, sample) - product_in_pieces(radial, supports.T).max(axis=1)
    outside = beyond > _BEYOND_MARGIN * reach * np.sqrt(dot(radial, radial))
    undecided = np.flatnonzero(~outside)
    # (unit directions, to rounding)
    heights = product_in_pieces(sample[undecided], _SPREAD.T) - (_SPREAD @ supports.T).max(axis=1)
    outside[undecided] = (heights > 2.0 * _BEYOND_MARGIN * reach).any(axis=1)
    return outside


def _fan_test(points: np.ndarray, sample: np.ndarray, directions: int) -> "_FanTest | None":
    """The fan test over the hull of the supports of ``points`` along the first ``directions`` fixed
    directions (None when those span no volume); ``sample`` sizes the flatness threshold."""
    support = np.unique(_supports(points, _DIRECTIONS[:directions]), axis=0)
    if len(support) < 4:
        return None
    center = support.mean(axis=0)
    triangles = inner_facets(support - center)
    radius = float(np.abs(sample - center).max())
    triangles = triangles[dot(triangles[:, 0], cross(triangles[:, 1], triangles[:, 2])) > _MIN_VOLUME * radius ** 3]
    return _FanTest(triangles, center) if len(triangles) else None


def _supports(points: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """The first point of largest value along each direction, chunk by chunk."""
    best = np.full(len(directions), -np.inf)
    found = np.zeros((len(directions), 3))
    for start in range(0, len(points), _CHUNK):
        checkpoint()  # (a cancelled caller's worker stops here)
        chunk = points[start:start + _CHUNK]
        values = product_in_pieces(directions, chunk.T)
        winner = np.argmax(values, axis=1)
        value = values[np.arange(len(directions)), winner]
        better = value > best
        best[better], found[better] = value[better], chunk[winner[better]]
    return found


class _FanTest:
    """Strictly inside one of the tetrahedra (centre, facet triangle), by a barycentric margin."""

    def __init__(self, triangles: np.ndarray, center: np.ndarray):
        self.center = center
        # Rows of ``inverse[f]`` give the barycentric weights of a point on the edges of tetrahedron f: the
        # inverse of the matrix whose columns are the corners a, b, c has rows (b×c, c×a, a×b) / det, written out
        # (LAPACK's inverse of a stack of 3x3 matrices wakes BLAS threads, which on a busy machine costs far more).
        a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
        rows = np.stack([cross(b, c), cross(c, a), cross(a, b)], axis=1)
        self.inverse = rows / dot(a, rows[:, 0])[:, None, None]
        normal = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
        # The facet the ray from the centre through a point leaves by has the largest height/offset.
        self.scaled = (normal / np.einsum("fj,fj->f", normal, triangles[:, 0])[:, None]).T

    def __call__(self, points: np.ndarray) -> np.ndarray:
        local = points - self.center
        weights = (self.inverse[np.argmax(product_in_pieces(local, self.scaled), axis=1)] @ local[:, :, None])[:, :, 0]
        w0, w1, w2 = weights.T
        return (w0 > _MARGIN) & (w1 > _MARGIN) & (w2 > _MARGIN) & (w0 + w1 + w2 < 1.0 - _MARGIN)
