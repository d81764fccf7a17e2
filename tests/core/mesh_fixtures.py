"""Closed, consistently oriented (outward) test meshes, and manifold3d as an independent reference.

Solids of revolution (sphere, torus, rod, cup, ring) come from one ``revolve`` of a closed profile;
prisms (box, L-bracket, wall with a door) from one ``extrude`` of a simple polygon.
"""

from __future__ import annotations

import coal
import manifold3d
import numpy as np

from core.mesh.solid import Solid
from core.mesh.trimesh import TriangleMesh


def mesh(vertices, triangles, name="mesh") -> TriangleMesh:
    return TriangleMesh.from_arrays(vertices, triangles, name)


def _outward(vertices: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    c = vertices[triangles] - vertices.mean(axis=0)
    volume = np.einsum("ij,ij->i", c[:, 0], np.cross(c[:, 1], c[:, 2])).sum()
    return triangles if volume > 0 else triangles[:, ::-1].copy()


def revolve(profile, segments: int) -> TriangleMesh:
    """The solid swept by a closed (r, z) polygon around the z axis; points with r == 0 lie on the axis."""
    profile = np.asarray(profile, dtype=float)
    angles = 2 * np.pi * np.arange(segments) / segments
    on_axis = profile[:, 0] == 0.0
    ids, vertices = [], []
    for r, z in profile:
        start = len(vertices)
        if r == 0.0:
            vertices.append((0.0, 0.0, z))
            ids.append(np.full(segments, start))
        else:
            vertices.extend(zip(r * np.cos(angles), r * np.sin(angles), np.full(segments, z)))
            ids.append(start + np.arange(segments))
    triangles = []
    for i in range(len(profile)):
        j = (i + 1) % len(profile)
        a, b = ids[i], ids[j]
        a2, b2 = np.roll(a, -1), np.roll(b, -1)
        if not on_axis[j]:
            triangles.append(np.stack([a, b, b2], axis=1))
        if not on_axis[i]:
            triangles.append(np.stack([a, b2, a2], axis=1))
    vertices = np.array(vertices)
    triangles = np.concatenate(triangles)
    return mesh(vertices, _outward(vertices, triangles))


def uv_sphere(radius=1.0, rings=12, segments=16) -> TriangleMesh:
    phi = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)
    profile = np.stack([radius * np.cos(phi), radius * np.sin(phi)], axis=1)
    profile[[0, -1], 0] = 0.0
    return revolve(profile[::-1], segments)


def torus(major=2.0, minor=0.5, major_segments=24, minor_segments=12) -> TriangleMesh:
    t = 2 * np.pi * np.arange(minor_segments) / minor_segments
    return revolve(np.stack([major + minor * np.cos(t), minor * np.sin(t)], axis=1), major_segments)


def rod(radius=0.3, z0=-2.0, z1=2.0, segments=16) -> TriangleMesh:
    """A closed cylinder along z."""
    return revolve([(0.0, z0), (radius, z0), (radius, z1), (0.0, z1)], segments)


def cup(radius=1.0, height=1.5, wall=0.15, segments=24) -> TriangleMesh:
    """A closed solid with a cavity open at the top: base of thickness ``wall``, side walls ``wall`` thick."""
    inner = radius - wall
    return revolve([(0.0, 0.0), (radius, 0.0), (radius, height), (inner, height), (inner, wall), (0.0, wall)],
                   segments)


def _cross_2d(u, v) -> float:
    return u[0] * v[1] - u[1] * v[0]


def _triangulate(polygon: np.ndarray) -> np.ndarray:
    """Ear clipping of a simple counter-clockwise polygon (test fixtures only: a few vertices)."""
    remaining = list(range(len(polygon)))
    triangles = []
    while len(remaining) > 3:
        for k in range(len(remaining)):
            i, j, l = remaining[k - 1], remaining[k], remaining[(k + 1) % len(remaining)]
            a, b, c = polygon[i], polygon[j], polygon[l]
            if _cross_2d(b - a, c - b) <= 0:
                continue
            others = [polygon[m] for m in remaining if m not in (i, j, l)]
            if any(_cross_2d(b - a, p - a) >= 0 and _cross_2d(c - b, p - b) >= 0 and _cross_2d(a - c, p - c) >= 0
                   for p in others):
                continue
            triangles.append((i, j, l))
            remaining.pop(k)
            break
        else:  # (a clockwise or zero-area polygon has no ear: without this the loop never ended)
            raise ValueError(f"polygon {polygon.tolist()} is not simple and counter-clockwise with an area")
    triangles.append(tuple(remaining))
    return np.array(triangles)


def extrude(polygon, z0: float, z1: float) -> TriangleMesh:
    """A prism over a simple counter-clockwise (x, y) polygon, from z0 to z1."""
    polygon = np.asarray(polygon, dtype=float)
    n = len(polygon)
    caps = _triangulate(polygon)
    vertices = np.concatenate([np.column_stack([polygon, np.full(n, z0)]), np.column_stack([polygon, np.full(n, z1)])])
    i = np.arange(n)
    j = (i + 1) % n
    sides = np.concatenate([np.stack([i, j, j + n], axis=1), np.stack([i, j + n, i + n], axis=1)])
    triangles = np.concatenate([caps[:, ::-1], caps + n, sides])
    return mesh(vertices, triangles)


def box(low=(0, 0, 0), high=(1, 1, 1)) -> TriangleMesh:
    (x0, y0, z0), (x1, y1, z1) = low, high
    return extrude([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], z0, z1)


def l_bracket(size=2.0, thickness=1.0, depth=1.0) -> TriangleMesh:
    s, t = size, thickness
    return extrude([(0, 0), (s, 0), (s, t), (t, t), (t, s), (0, s)], 0.0, depth)


def wall_with_door(width=3.0, height=3.0, door=1.0, door_height=2.0, thickness=0.2) -> TriangleMesh:
    """A wall in the x–z plane (thickness along y) with a door cut from its bottom edge."""
    left, right = (width - door) / 2, (width + door) / 2
    outline = [(0, 0), (left, 0), (left, door_height), (right, door_height), (right, 0), (width, 0),
               (width, height), (0, height)]
    prism = extrude(outline, 0.0, thickness)
    return transformed(prism, np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=float))


def block_with_hole(half=1.0, radius=0.4, height=1.0, segments=32) -> TriangleMesh:
    """A square block |x|, |y| <= half, 0 <= z <= height, with a cylindrical hole along z (segments % 8 == 0)."""
    angles = 2 * np.pi * np.arange(segments) / segments
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    square = half * ring / np.abs(ring).max(axis=1, keepdims=True)
    outer = [np.column_stack([square, np.full(segments, z)]) for z in (0.0, height)]
    inner = [np.column_stack([radius * ring, np.full(segments, z)]) for z in (0.0, height)]
    vertices = np.concatenate(outer + inner)  # outer bottom, outer top, inner bottom, inner top
    i = np.arange(segments)
    j = (i + 1) % segments
    ob, ot, ib, it = 0, segments, 2 * segments, 3 * segments

    def quads(a, b, c, d):  # a-b-c-d counter-clockwise seen from outside
        return [np.stack([a, b, c], axis=1), np.stack([a, c, d], axis=1)]

    faces = (quads(ob + i, ob + j, ot + j, ot + i) + quads(it + i, it + j, ib + j, ib + i)
             + quads(ot + i, ot + j, it + j, it + i) + quads(ib + i, ib + j, ob + j, ob + i))
    return mesh(vertices, np.concatenate(faces))


def chain_link(length=3.0, radius=1.0, wire=0.25, arc_segments=12, wire_segments=8) -> TriangleMesh:
    """A stadium-shaped closed link in the x–y plane: two half-tori joined by straight tubes."""
    half = length / 2 - radius
    t = np.linspace(-np.pi / 2, np.pi / 2, arc_segments + 1)
    right = np.stack([half + radius * np.cos(t), radius * np.sin(t)], axis=1)
    path = np.concatenate([right, -right])  # closed centre line, counter-clockwise
    tangent = np.roll(path, -1, axis=0) - np.roll(path, 1, axis=0)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    outward = np.stack([tangent[:, 1], -tangent[:, 0]], axis=1)
    s = 2 * np.pi * np.arange(wire_segments) / wire_segments
    ring = (path[:, None, :] + wire * np.cos(s)[None, :, None] * outward[:, None, :])
    vertices = np.concatenate([ring, np.broadcast_to(wire * np.sin(s), ring.shape[:2])[..., None]], axis=2)
    n, m = len(path), wire_segments
    i, k = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    a = i * m + k
    b = ((i + 1) % n) * m + k
    c = ((i + 1) % n) * m + (k + 1) % m
    d = i * m + (k + 1) % m
    triangles = np.concatenate([np.stack([a, b, c], axis=-1).reshape(-1, 3),
                                np.stack([a, c, d], axis=-1).reshape(-1, 3)])
    vertices = vertices.reshape(-1, 3)
    return mesh(vertices, _outward(vertices, triangles))


def transformed(shape: TriangleMesh, linear=np.eye(3), offset=(0.0, 0.0, 0.0)) -> TriangleMesh:
    linear = np.asarray(linear, dtype=float)
    triangles = shape.triangles if np.linalg.det(linear) > 0 else shape.triangles[:, ::-1]
    return mesh(shape.vertices @ linear.T + np.asarray(offset, dtype=float), triangles)


def moved(solid: Solid, offset=(0.0, 0.0, 0.0), linear=np.eye(3)) -> Solid:
    """A moved copy of ``solid`` (``Solid.transformed``): ``linear`` then ``offset``."""
    matrix = np.eye(4)
    matrix[:3, :3], matrix[:3, 3] = linear, offset
    return solid.transformed(matrix)


def joined(*shapes: TriangleMesh) -> TriangleMesh:
    """One mesh holding several loose parts."""
    offsets = np.cumsum([0] + [len(s.vertices) for s in shapes[:-1]])
    return mesh(np.concatenate([s.vertices for s in shapes]),
                np.concatenate([s.triangles + o for s, o in zip(shapes, offsets)]))


def manifold(shape: TriangleMesh) -> manifold3d.Manifold:
    return manifold3d.Manifold(manifold3d.Mesh64(vert_properties=np.array(shape.vertices),
                                                 tri_verts=shape.triangles.astype(np.uint64)))


def manifold_overlap(a: TriangleMesh, b: TriangleMesh) -> tuple[float, np.ndarray | None]:
    """Volume and centroid of A ∩ B by manifold3d's exact-topology boolean."""
    both = manifold(a) ^ manifold(b)
    volume = both.volume()
    if volume <= 0:
        return 0.0, None
    out = both.to_mesh64()
    v = np.asarray(out.vert_properties)[:, :3]
    c = v[np.asarray(out.tri_verts, dtype=np.int64)]
    det = np.einsum("ij,ij->i", c[:, 0], np.cross(c[:, 1], c[:, 2]))
    centroid = (det[:, None] * c.sum(axis=1)).sum(axis=0) / (4 * det.sum())
    return volume, centroid


def rotation_z(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def coal_model(shape: TriangleMesh):
    bvh = coal.BVHModelOBBRSS()
    bvh.beginModel(len(shape.triangles), len(shape.vertices))
    bvh.addVertices(np.array(shape.vertices))
    bvh.addTriangles(np.array(shape.triangles))
    bvh.endModel()
    return bvh


def coal_distance(a: TriangleMesh, b: TriangleMesh) -> float:
    """coal's exact BVH (OBBRSS) distance between two triangle meshes' surfaces (0 when they touch or cross)."""
    result = coal.DistanceResult()
    return coal.distance(coal_model(a), coal.Transform3s(), coal_model(b), coal.Transform3s(),
                         coal.DistanceRequest(), result)


#: The radius of the ball that stands for a point in ``coal_surface_distance``.
POINT_BALL = 1e-12


def coal_surface_distance(point, shape: TriangleMesh) -> float:
    """coal's distance from ``point`` to the surface of ``shape`` (inside or out): a tiny ball there against the
    triangles."""
    place = coal.Transform3s()
    place.setTranslation(np.asarray(point, dtype=float))
    result = coal.DistanceResult()
    gap = coal.distance(coal.Sphere(POINT_BALL), place, coal_model(shape), coal.Transform3s(), coal.DistanceRequest(),
                        result)
    return gap + POINT_BALL if gap > 0.0 else float(np.linalg.norm(result.getNearestPoint1() - result.getNearestPoint2()))
