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
