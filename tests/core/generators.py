"""Seeded test geometry: point clouds, boxes, tessellated spheres and cylinders, rotations, directions."""

from __future__ import annotations

import numpy as np


def unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` directions uniform on the unit sphere."""
    v = rng.normal(size=(count, 3))
    return v / np.linalg.norm(v, axis=1)[:, None]


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """A uniformly random proper rotation matrix."""
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def rotation_about(axis, angle: float) -> np.ndarray:
    """Rotation by ``angle`` radians about ``axis`` (Rodrigues)."""
    k = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * cross + (1 - np.cos(angle)) * cross @ cross


def affine(linear: np.ndarray, offset=(0.0, 0.0, 0.0)) -> np.ndarray:
    """4x4 matrix of ``x -> linear x + offset``."""
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = linear, offset
    return m


def box(half_extents) -> np.ndarray:
    """The 8 corners of an axis-aligned box centred at the origin."""
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    return signs * np.asarray(half_extents, dtype=float)


def cloud(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` points of an anisotropic Gaussian blob about 1 across."""
    return rng.normal(size=(count, 3)) * rng.uniform(0.15, 0.35, size=3)


def sphere(count: int, radius: float = 0.5) -> np.ndarray:
    """``count`` points spread evenly on a sphere (Fibonacci lattice); all of them are hull vertices."""
    i = np.arange(count) + 0.5
    z = 1.0 - 2.0 * i / count
    phi = i * np.pi * (3.0 - np.sqrt(5.0))
    r = np.sqrt(1.0 - z * z)
    return radius * np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def cylinder(segments: int, radius: float = 0.4, height: float = 0.8) -> np.ndarray:
    """A tessellated cylinder along z: two rings of ``segments`` vertices."""
    angle = 2 * np.pi * np.arange(segments) / segments
    ring = np.column_stack([radius * np.cos(angle), radius * np.sin(angle), np.zeros(segments)])
    return np.vstack([ring - [0, 0, height / 2], ring + [0, 0, height / 2]])


def random_shape(rng: np.random.Generator, family: str) -> np.ndarray:
    """A randomly sized and rotated member of ``family`` ('cloud', 'box', 'sphere', 'cylinder')."""
    if family == "cloud":
        points = cloud(rng, int(rng.choice([4, 12, 60, 400, 2000])))
    elif family == "box":
        points = box(rng.uniform(0.1, 0.6, size=3))
    elif family == "sphere":
        points = sphere(int(rng.integers(40, 160)), rng.uniform(0.3, 0.6))
    else:
        points = cylinder(int(rng.integers(6, 48)), rng.uniform(0.1, 0.5), rng.uniform(0.1, 1.0))
    return points @ random_rotation(rng).T


def awkward_clouds() -> dict[str, np.ndarray]:
    """Clouds of thousands of points that are hard on support structures: far from the origin, exact ties,
    flat, needle-thin, duplicated."""
    rng = np.random.default_rng(41)
    grid = np.stack(np.meshgrid(*[np.linspace(-1, 1, 15)] * 3), axis=-1).reshape(-1, 3)  # many exact ties
    return {
        "sphere surface": sphere(6000, 0.5) @ random_rotation(rng).T + [300.0, -1.0, 2.0],
        "solid blob": cloud(rng, 6000),
        "cube grid": grid,
        "flat disc": np.column_stack([rng.uniform(-1, 1, (3000, 2)), np.zeros(3000)]),
        "needle": np.outer(rng.uniform(-1, 1, 2000), [1.0, 2.0, -0.5]) + 1e-9 * rng.normal(size=(2000, 3)),
        "thin slab": rng.normal(size=(3000, 3)) * [1.0, 1e-6, 3.0],
        "duplicates": np.repeat(cloud(rng, 700), 3, axis=0),
        "two points": np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]] * 1000),
    }


def tube_joined(vertices_a, triangles_a, vertices_b, triangles_b, lift: float = 0.3
                ) -> tuple[np.ndarray, np.ndarray]:
    """One closed surface made of two closed outward meshes A and B (B further along +x): a triangle of A furthest
    along -x and one of B furthest along +x are removed and the holes joined by a thin triangular tube that leaves
    each along its face's normal, rises ``lift`` above both and runs across. The surface's winding number is A's
    plus B's plus the tube's (1 inside it), so where A and B overlap it covers the space twice; when the tube
    crosses neither mesh, that is exactly the space they share. Returns ``(vertices, triangles)``."""
    vertices = np.concatenate([np.asarray(vertices_a, float), np.asarray(vertices_b, float)])
    triangles_a, triangles_b = np.asarray(triangles_a), np.asarray(triangles_b) + len(vertices_a)
    top = vertices[:, 2].max() + lift
    up, side = np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0])

    def flat(vector):  # in the x-z plane, unit: the tube's path stays in one plane, its loops never twist
        vector = vector - (vector @ side) * side
        return vector / np.linalg.norm(vector)

    def normal(hole):
        corners = vertices[hole]
        return flat(np.cross(corners[1] - corners[0], corners[2] - corners[0]))

    def outline(hole, tangent):  # the hole's corners in the plane across the travel, shrunk to the tube's width
        spokes = vertices[hole] - vertices[hole].mean(axis=0)
        flat_spokes = np.stack([spokes @ side, spokes @ np.cross(tangent, side)], axis=1)
        return lift / 3.0 * flat_spokes / np.linalg.norm(flat_spokes, axis=1).max()

    hole_a = triangles_a[int(np.argmin(vertices[triangles_a].mean(axis=1)[:, 0]))]
    normal_a = normal(hole_a)
    shape_a = outline(hole_a, normal_a)
    centres_b = vertices[triangles_b].mean(axis=1)[:, 0]
    holes_b = triangles_b[centres_b >= centres_b.max() - 1e-9]
    normal_b = normal(holes_b[0])
    # B's hole runs the other way round the tube; of its candidates and turns, the one most like A's
    hole_b = min((np.roll(hole[[0, 2, 1]], -k) for hole in holes_b for k in range(3)),
                 key=lambda turned: np.linalg.norm(outline(turned, -normal_b) - shape_a))
    shape_b = outline(hole_b, -normal_b)
    start_a = vertices[hole_a].mean(axis=0) + lift * normal_a
    start_b = vertices[hole_b].mean(axis=0) + lift * normal_b
    bend_a, bend_b = start_a + lift * normal_a, start_b + lift * normal_b
    over_a, over_b = bend_a + (top - bend_a[2]) * up, bend_b + (top - bend_b[2]) * up
    across = flat(over_b - over_a)
    loops = [hole_a]
    steps = np.linspace(0.0, 1.0, 9)[1:-1]  # across, A's outline turns into B's a little at a time
    middle = [(over_a + step * (over_b - over_a), across, (1.0 - step) * shape_a + step * shape_b) for step in steps]
    for centre, tangent, shape in [(start_a, normal_a, shape_a), (bend_a, flat(normal_a + up), shape_a),
                                   (over_a, flat(up + across), shape_a), *middle, (over_b, flat(across - up), shape_b),
                                   (bend_b, flat(-up - normal_b), shape_b), (start_b, -normal_b, shape_b)]:
        # the outline in each plane across the travel (one side vector throughout: the tube never rolls)
        ring = centre + shape[:, :1] * side + shape[:, 1:] * np.cross(tangent, side)
        loops.append(len(vertices) + np.arange(3))
        vertices = np.concatenate([vertices, ring])
    loops.append(hole_b)
    sides = []
    for low, high in zip(loops[:-1], loops[1:]):  # each section uses its first loop forward, its second backward
        for k in range(3):
            x, y, x_up, y_up = low[k], low[(k + 1) % 3], high[k], high[(k + 1) % 3]
            sides += [(x, y, y_up), (x, y_up, x_up)]
    kept = [triangle for triangle in np.concatenate([triangles_a, triangles_b])
            if not (set(triangle) == set(hole_a) or set(triangle) == set(hole_b))]
    return vertices, np.concatenate([np.array(kept), np.array(sides)])
