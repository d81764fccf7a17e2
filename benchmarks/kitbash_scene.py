"""A synthetic kitbashed roof: thousands of small non-convex parts (notched tiles, L-battens, U-rafters, cross
posts), placed touching and interpenetrating as a modelled timber roof is, as world-space triangle meshes.

``roof(rows, columns, rng)`` returns ``(names, meshes)``; each mesh a ``(vertices, triangles)`` pair of arrays.
"""

from __future__ import annotations

import numpy as np

TILE_WIDTH, TILE_LENGTH, TILE_THICKNESS = 0.30, 0.36, 0.025
TILE_PITCH_X, TILE_PITCH_Y = 0.28, 0.30  # neighbours overlap by 2 cm sideways and 6 cm up the slope
RAFTER_EVERY = 0.6
POST_EVERY = 1.8
SLOPE = np.radians(28.0)


def _ear_clip(profile: np.ndarray) -> np.ndarray:
    """Triangles (T, 3) of a simple counter-clockwise polygon (ear clipping; profiles have a dozen corners)."""
    left, triangles = list(range(len(profile))), []
    while len(left) > 3:
        for k in range(len(left)):
            i, j, m = left[k - 1], left[k], left[(k + 1) % len(left)]
            u, v = profile[j] - profile[i], profile[m] - profile[j]
            if u[0] * v[1] - u[1] * v[0] <= 0.0:
                continue  # reflex corner
            corner = profile[[i, j, m]]
            others = [p for p in left if p not in (i, j, m)]
            if any(_in_triangle(profile[p], corner) for p in others):
                continue
            triangles.append((i, j, m))
            left.pop(k)
            break
    triangles.append(tuple(left))
    return np.array(triangles)


def _in_triangle(point: np.ndarray, corners: np.ndarray) -> bool:
    edges = [(corners[(k + 1) % 3] - corners[k], point - corners[k]) for k in range(3)]
    signs = [u[0] * v[1] - u[1] * v[0] for u, v in edges]  # (np.cross of 2-vectors is deprecated)
    return all(s >= 0.0 for s in signs) or all(s <= 0.0 for s in signs)


def extrude(profile, length: float) -> tuple[np.ndarray, np.ndarray]:
    """A closed prism: the counter-clockwise ``profile`` (n, 2) in x, y, from z = 0 to ``length``, faces outward."""
    profile = np.asarray(profile, dtype=float)
    n = len(profile)
    vertices = np.vstack([np.column_stack([profile, np.zeros(n)]), np.column_stack([profile, np.full(n, length)])])
    cap = _ear_clip(profile)
    k = np.arange(n)
    following = (k + 1) % n
    sides = np.vstack([np.column_stack([k, following, following + n]), np.column_stack([k, following + n, k + n])])
    return vertices, np.vstack([cap[:, ::-1], cap + n, sides])


def l_profile(width: float, height: float, thickness: float) -> np.ndarray:
    return np.array([(0, 0), (width, 0), (width, thickness), (thickness, thickness), (thickness, height),
                     (0, height)])


def u_profile(width: float, height: float, thickness: float) -> np.ndarray:
    return np.array([(0, 0), (width, 0), (width, height), (width - thickness, height), (width - thickness, thickness),
                     (thickness, thickness), (thickness, height), (0, height)])


def notched_tile_profile(width: float, thickness: float, notch: float) -> np.ndarray:
    """A tile's section: a plate with a groove along its underside (where it sits on the tile below)."""
    g0, g1 = 0.4 * width, 0.6 * width
    return np.array([(0, 0), (g0, 0), (g0, notch), (g1, notch), (g1, 0), (width, 0), (width, thickness),
                     (0, thickness)])


def cross_profile(size: float, arm: float) -> np.ndarray:
    a, b = 0.5 * (size - arm), 0.5 * (size + arm)
    return np.array([(a, 0), (b, 0), (b, a), (size, a), (size, b), (b, b), (b, size), (a, size), (a, b), (0, b),
                     (0, a), (a, a)])


def _rotation(axis: int, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    i, j = [k for k in range(3) if k != axis]
    matrix = np.eye(3)
    matrix[i, i], matrix[i, j], matrix[j, i], matrix[j, j] = c, -s, s, c
    return matrix


# Prisms are extruded along z; these turn the extrusion along the roof's x (across) or y (up the slope), the
# profile's y up.
ALONG_X = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
ALONG_Y = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def roof(rows: int, columns: int, rng: np.random.Generator) -> tuple[list[str], list[tuple[np.ndarray, np.ndarray]]]:
    """``rows`` x ``columns`` notched tiles overlapping their neighbours, on an L-batten per row, on U-rafters every
    ``RAFTER_EVERY``, on cross posts every ``POST_EVERY`` along each rafter; the roof pitched by ``SLOPE``.
    Each tile is turned by up to half a degree and shifted by up to 2 mm, so no two touch exactly."""
    width, depth = columns * TILE_PITCH_X + 0.1, rows * TILE_PITCH_Y + 0.2
    tile = extrude(notched_tile_profile(TILE_WIDTH, TILE_THICKNESS, 0.012), TILE_LENGTH)
    batten = extrude(l_profile(0.05, 0.04, 0.012), width)
    rafter = extrude(u_profile(0.08, 0.12, 0.015), depth)
    post = extrude(cross_profile(0.14, 0.05), 1.5)
    pitch = _rotation(0, SLOPE)
    parts: list[tuple[str, tuple[np.ndarray, np.ndarray], np.ndarray, np.ndarray]] = []
    rafter_xs = np.arange(0.0, width - 0.05, RAFTER_EVERY)
    for k, x in enumerate(rafter_xs):  # rafters' tops at z = 0
        parts.append((f"Rafter {k:03d}", rafter, ALONG_Y, np.array([x, 0.0, -0.12])))
        for m, y in enumerate(np.arange(0.3, depth, POST_EVERY)):  # posts reach 1 cm into the rafter
            parts.append((f"Post {k:03d}.{m:02d}", post, np.eye(3), np.array([x - 0.03, y - 0.07, -1.61])))
    for r in range(rows):
        y = 0.1 + r * TILE_PITCH_Y
        lift = 0.035 + (r % 2) * 0.02  # odd rows lie 5 mm into the rows below and above
        # battens sit 4 mm into the rafters (raised on packing under odd rows), tiles 5 mm into their batten
        parts.append((f"Batten {r:03d}", batten, ALONG_X, np.array([0.0, y + 0.25, lift - 0.035])))
        for c in range(columns):
            turn = _rotation(2, rng.uniform(-1, 1) * np.radians(0.5)) @ _rotation(0, rng.uniform(-1, 1) * 0.004)
            offset = np.array([c * TILE_PITCH_X, y, lift]) + rng.uniform(-0.002, 0.002, 3)
            parts.append((f"Tile {r:03d}.{c:03d}", tile, turn @ ALONG_Y, offset))
    names, meshes = [], []
    for name, (vertices, triangles), turn, low in parts:
        names.append(name)
        turned = vertices @ turn.T
        meshes.append(((turned - turned.min(axis=0) + low) @ pitch.T, triangles))
    return names, meshes
