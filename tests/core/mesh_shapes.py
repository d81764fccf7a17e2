"""Closed, outward-oriented triangle meshes for the mesh-distance tests: (vertices, triangles) arrays.

Shapes: torus, UV sphere, cylinder, cup (surfaces of revolution), box, L-bracket (extruded
polygons), and a square block with a cylindrical hole. All are built from two primitives: quads
between consecutive closed rings of points (``sweep``) and prisms over star-shaped polygons.
"""

from __future__ import annotations

import numpy as np


def _quads_between_rings(ring_count: int, segments: int, closed: bool) -> np.ndarray:
    """Two triangles per quad between ring j and j+1 (wrapping around when ``closed``)."""
    j = np.arange(ring_count if closed else ring_count - 1)[:, None]
    k = np.arange(segments)[None, :]
    a = j * segments + k
    b = j * segments + (k + 1) % segments
    c = ((j + 1) % ring_count) * segments + (k + 1) % segments
    d = ((j + 1) % ring_count) * segments + k
    return np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])


def sweep(rings: np.ndarray, closed: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Surface through ``rings`` (J, n, 3), each a closed loop of n points, joined ring to ring."""
    ring_count, segments = rings.shape[:2]
    return rings.reshape(-1, 3).astype(float), _quads_between_rings(ring_count, segments, closed)


def _circle_rings(profile: np.ndarray, segments: int) -> np.ndarray:
    """Rings of revolution about z of the (r, z) ``profile`` points: (len(profile), segments, 3)."""
    angle = 2 * np.pi * np.arange(segments) / segments
    r, z = profile[:, :1], profile[:, 1:]
    return np.stack([r * np.cos(angle), r * np.sin(angle), np.broadcast_to(z, r.shape[:1] + angle.shape)], -1)


def revolve(profile, segments: int) -> tuple[np.ndarray, np.ndarray]:
    """Closed surface of revolution about z of an (r, z) polyline whose two ends lie on the axis.

    The profile runs counter-clockwise in the (r, z) half-plane (bottom pole first) for outward normals.
    """
    profile = np.asarray(profile, dtype=float)
    rings = _circle_rings(profile[1:-1], segments)
    vertices, triangles = sweep(rings, closed=False)
    bottom, top = len(vertices), len(vertices) + 1
    k = np.arange(segments)
    last = (len(rings) - 1) * segments
    bottom_fan = np.column_stack([np.full(segments, bottom), (k + 1) % segments, k])
    top_fan = np.column_stack([last + k, last + (k + 1) % segments, np.full(segments, top)])
    poles = np.array([[0.0, 0.0, profile[0, 1]], [0.0, 0.0, profile[-1, 1]]])
    return np.vstack([vertices, poles]), np.concatenate([triangles, bottom_fan, top_fan])


def torus(major: float = 1.0, minor: float = 0.25, major_segments: int = 32, minor_segments: int = 16):
    """Torus about z through the origin: 2 * major_segments * minor_segments triangles."""
    phi = 2 * np.pi * np.arange(minor_segments) / minor_segments
    profile = np.column_stack([major + minor * np.cos(phi), minor * np.sin(phi)])
    return sweep(_circle_rings(profile, major_segments))


def sphere(radius: float = 0.5, rings: int = 12, segments: int = 24):
    """UV sphere centred at the origin."""
    theta = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)
    return revolve(np.column_stack([radius * np.cos(theta), radius * np.sin(theta)]), segments)


def cylinder(radius: float = 0.2, height: float = 1.0, segments: int = 24):
    """Closed cylinder along z centred at the origin."""
    h = height / 2
    return revolve([[0, -h], [radius, -h], [radius, h], [0, h]], segments)


def cup(radius: float = 0.6, height: float = 0.8, wall: float = 0.08, segments: int = 32):
    """A cup standing on z = 0: outer radius ``radius``, open at the top, walls and floor ``wall`` thick."""
    inner = radius - wall
    return revolve([[0, 0], [radius, 0], [radius, height], [inner, height], [inner, wall], [0, wall]], segments)


def prism(polygon, height: float, fan_corner: int = 0):
    """Extrusion along z (0..height) of a counter-clockwise polygon that is star-shaped from ``fan_corner``."""
    polygon = np.asarray(polygon, dtype=float)
    n = len(polygon)
    vertices = np.vstack([np.column_stack([polygon, np.zeros(n)]), np.column_stack([polygon, np.full(n, height)])])
    i = np.arange(n)
    j = (i + 1) % n
    sides = np.concatenate([np.column_stack([i, j, n + j]), np.column_stack([i, n + j, n + i])])
    fan = (fan_corner + np.arange(1, n - 1)) % n
    top = np.column_stack([np.full(n - 2, n + fan_corner), n + fan, n + (fan + 1) % n])
    bottom = np.column_stack([np.full(n - 2, fan_corner), (fan + 1) % n, fan])
    return vertices, np.concatenate([sides, top, bottom])


def box(half_extents=(0.5, 0.5, 0.5), center=(0.0, 0.0, 0.0)):
    """Axis-aligned box: 12 triangles."""
    hx, hy, hz = half_extents
    vertices, triangles = prism([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]], 2 * hz)
    return vertices + np.asarray(center, dtype=float) - [0.0, 0.0, hz], triangles


def l_bracket(length: float = 2.0, thickness: float = 0.5, depth: float = 1.0):
    """An L-shaped prism: legs along +x and +y from the origin, inner corner at (thickness, thickness)."""
    polygon = [[0, 0], [length, 0], [length, thickness], [thickness, thickness], [thickness, length], [0, length]]
    return prism(polygon, depth, fan_corner=3)


def block_with_hole(half: float = 0.5, height: float = 1.0, hole_radius: float = 0.25, segments: int = 32):
    """Square block |x|, |y| <= half, 0 <= z <= height, with a through hole of ``hole_radius`` along z.

    ``segments`` must be a multiple of 4 so that the square ring holds the block's four corners.
    """
    angle = 2 * np.pi * np.arange(segments) / segments + np.pi / 4
    circle = np.column_stack([np.cos(angle), np.sin(angle)])
    square = half * circle / np.abs(circle).max(axis=1)[:, None]
    hole = hole_radius * circle

    def ring(points, z):
        return np.column_stack([points, np.full(segments, z)])

    return sweep(np.stack([ring(square, 0.0), ring(square, height), ring(hole, height), ring(hole, 0.0)]))
