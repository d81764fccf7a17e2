"""EPA's arithmetic written out in plain floats, or over many rows at once in numpy, gives the floats of the scalar
code it stands for."""

from __future__ import annotations

import math

import numpy as np

import core
from core.narrowphase.collide import PreparedPair, pair_contact, pair_contacts
from core.narrowphase.epa import _thinnest_height, plane_of, sliver_plane
from core.narrowphase.warm_epa import corner_planes
from core.vector.vec3 import cross, dot, norm, sub
from generators import random_rotation


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


def test_a_triangle_collinear_but_for_a_residue_along_its_edge_has_no_plane():
    """Three points on a line along y: the apex's offset from the long edge's line is a rounding residue along that
    edge, so the normal is zero; ``sliver_plane`` (and ``plane_of``, ``corner_planes``) refuse it as a face with no
    area instead of dividing by zero."""
    corners = [(-0.0016910282599971475, y, -0.0014151400906116194)
               for y in (1.9996748308353023, -1.0003251691646977, 0.9996748308353024)]
    assert sliver_plane(*corners) is None and plane_of(*corners) is None
    assert np.isnan(corner_planes(*(np.array([corner]) for corner in corners))[1]).all()


def test_pair_contacts_are_pair_contact():
    """Pairs with margins (spheres), rescaled pairs (far too large or small to solve as they are), values inside
    their bounds and clipped to them, signed zeros, normals along -z and +-0 z."""
    rng = np.random.default_rng(4)
    pairs = []
    for k in range(300):
        points = rng.uniform(-1.0, 1.0, (12, 3)) * 10.0 ** [0.0, 40.0, -40.0][k % 3]
        a = core.Sphere(points[0], 0.25) if k % 4 == 0 else points
        b = core.Sphere(points[1], 0.5) if k % 5 == 0 else points + rng.uniform(-0.5, 0.5, 3) * np.ptp(points)
        pairs.append(PreparedPair(a, b, None, None, None))
    count = len(pairs)
    values = rng.choice([-1.0, -1e-3, 0.0, -0.0, 0.5], count) * rng.uniform(0.5, 1.5, count)
    normals = rng.normal(size=(count, 3))
    normals[::5] = [0.0, 0.0, -1.0]
    normals[1::5, 2] = rng.choice([0.0, -0.0], len(normals[1::5]))
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    points_a, points_b = rng.normal(size=(2, count, 3))
    bounds = np.sort(values[:, None] + rng.choice([-1.0, 0.0, 1.0], (count, 2)) * rng.uniform(0, 0.1, (count, 2)),
                     axis=1)
    bounds[::7] = values[::7, None] + [0.1, 0.2]  # the value below its bounds, clipped up
    statuses = rng.choice(["converged", "stalled"], count).tolist()
    together = pair_contacts(pairs, values, normals, points_a, points_b, bounds, list(range(count)),
                             list(range(count, 2 * count)), statuses)
    for k, (pair, contact) in enumerate(zip(pairs, together)):
        alone = pair_contact(pair, float(values[k]), tuple(normals[k].tolist()), tuple(points_a[k].tolist()),
                             tuple(points_b[k].tolist()), tuple(bounds[k].tolist()), k, count + k, statuses[k])
        assert contact_bits(contact) == contact_bits(alone)
    assert {pair.unit != 1.0 for pair in pairs} == {True, False} and {pair.margin > 0.0 for pair in pairs} == {True,
                                                                                                                False}


def contact_bits(contact) -> tuple:
    """A ``Contact``'s fields, floats by their bits."""
    floats = (contact.signed_distance, *contact.normal.tolist(), *contact.point_a.tolist(), *contact.point_b.tolist(),
              *contact.bounds, contact.tolerance, *contact.tangents.ravel().tolist())
    return (contact.status, contact.gjk_iterations, contact.epa_iterations, contact.solver_status,
            sorted(vars(contact)), contact.tangents.shape, *(float(x).hex() for x in floats))


def sliver_triangles(seed: int, count: int) -> np.ndarray:
    """Triangles (count, 3 corners, 3) that ``plane_of`` hands to ``sliver_plane``: apexes a little off (or on) the
    line of the other two, near either end or the middle, with the longest edge in every slot and tied; thin enough
    for either error formula; far from the origin and near it; dyadic ones with exact ties and signed zeros;
    repeated corners and points on a line along an axis (no plane)."""
    rng = np.random.default_rng(seed)
    triangles = np.empty((count, 3, 3))
    for k in range(count):
        start, direction = rng.uniform(-1.0, 1.0, 3) * 10.0 ** rng.integers(-3, 4), rng.normal(size=3)
        apex = start + rng.choice([0.0, 0.5, 1.0, 1.5, -0.3]) * direction
        apex = apex + rng.normal(size=3) * 10.0 ** rng.integers(-17, -3) * rng.choice([0.0, 1.0], p=[0.05, 0.95])
        corners = np.array([start, start + direction, apex])
        if k % 7 == 0:
            corners = rng.choice([0.0, -0.0, 0.25, -0.5, 1.0], (3, 3))
            corners[2] = corners[0] if k % 2 else corners[2]
        elif k % 7 == 1:  # on a line along y
            corners = np.column_stack([np.full(3, rng.normal()), rng.normal(size=3), np.full(3, rng.normal())])
        elif k % 7 == 2:  # a dyadic needle: its two long edges tie
            half, reach = 2.0 ** -int(rng.integers(8, 40)), float(rng.integers(1, 9))
            corners = np.array([[-half, 0.0, 0.0], [half, 0.0, 0.0], [0.0, reach, 0.0]]) @ random_rotation(rng).T
            corners = corners if k % 3 else np.array([[-half, 0.0, 0.0], [half, 0.0, 0.0], [0.0, reach, 0.0]])
        triangles[k] = corners[rng.permutation(3)]
    return triangles


def test_corner_planes_are_plane_of_slivers_included():
    """Every row of ``corner_planes`` is ``plane_of``'s plane bit for bit (signed zeros told apart), its slivers'
    rows (``sliver_planes``, over arrays) included; NaN exactly where ``plane_of`` finds no plane."""
    triangles = sliver_triangles(12, 6000)
    normals, distances, errors = corner_planes(triangles[:, 0], triangles[:, 1], triangles[:, 2])
    kinds = {"none": 0, "sliver": 0, "steep": 0}
    for corners, normal, distance, error in zip(triangles.tolist(), normals.tolist(), distances.tolist(),
                                                errors.tolist()):
        plane = plane_of(*map(tuple, corners))
        if plane is None:
            assert all(math.isnan(x) for x in (*normal, distance, error))
            kinds["none"] += 1
            continue
        assert all(same_float(x, y) for x, y in zip((*normal, distance, error), (*plane[0], plane[1], plane[2])))
        (ux, uy, uz), (vx, vy, vz) = sub(corners[1], corners[0]), sub(corners[2], corners[0])
        spread2 = (ux * ux + uy * uy + uz * uz) * (vx * vx + vy * vy + vz * vz)
        if norm(cross((ux, uy, uz), (vx, vy, vz))) ** 2 <= 1e-4 * spread2:
            kinds["sliver"] += 1
            longest = max(norm(sub(corners[i], corners[j])) for i, j in ((0, 1), (1, 2), (2, 0)))
            height = norm(cross((ux, uy, uz), (vx, vy, vz))) / longest
            kinds["steep"] += longest ** 2 >= 1e20 * height ** 2  # (the error's second formula)
    assert kinds["none"] >= 200 and kinds["sliver"] >= 2400 and kinds["steep"] >= 200, kinds
