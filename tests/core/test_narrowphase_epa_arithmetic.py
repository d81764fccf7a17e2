"""EPA's arithmetic written out in plain floats gives the floats of the ``vec3`` helpers it replaced."""

from __future__ import annotations

import math

import numpy as np

from core.narrowphase.epa import _thinnest_height
from core.vector.vec3 import cross, dot, norm, sub


def thinnest_height_by_helpers(vertices) -> float:
    """The vertex nearest the plane of the other three, as the ``vec3`` helpers compute it."""
    points = [vertex[0] for vertex in vertices]
    volume6 = abs(dot(cross(sub(points[1], points[0]), sub(points[2], points[0])), sub(points[3], points[0])))
    heights = []
    for skip in range(4):
        a, b, c = (points[i] for i in range(4) if i != skip)
        area2 = norm(cross(sub(b, a), sub(c, a)))
        heights.append(volume6 / area2 if area2 > 0.0 else 0.0)
    return min(heights)


def tetrahedra(seed: int, count: int):
    """Round, flat, repeated-corner, signed-zero, far-flung and tiny tetrahedra on a dyadic grid and off it."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        kind = k % 5
        if kind == 0:
            points = rng.uniform(-1.0, 1.0, (4, 3))
        elif kind == 1:
            points = rng.choice([0.0, -0.0, 0.25, -0.5, 1.0], (4, 3))  # flat, repeated and zero corners
        elif kind == 2:
            points = rng.uniform(-1.0, 1.0, (4, 3)) * 10.0 ** rng.integers(-150, 150)
        elif kind == 3:
            points = rng.uniform(-1.0, 1.0, (4, 3)) * 10.0 ** rng.integers(-150, 150, (4, 3))
        else:
            points = rng.uniform(-1.0, 1.0, (4, 3))
            points[3] = points[0] + rng.uniform(0.0, 1.0) * (points[1] - points[0])  # on an edge
        yield [(tuple(point), None, None) for point in points.tolist()]


def same_float(x: float, y: float) -> bool:
    return (x == y and math.copysign(1.0, x) == math.copysign(1.0, y)) or (math.isnan(x) and math.isnan(y))


def test_thinnest_height_is_the_helpers_float():
    cases = list(tetrahedra(0, 5000))
    found = [_thinnest_height(vertices) for vertices in cases]
    assert all(same_float(x, thinnest_height_by_helpers(vertices)) for x, vertices in zip(found, cases))
    assert sum(x == 0.0 for x in found) >= 500 and sum(x > 0.0 for x in found) >= 3000  # flat ones and round ones
