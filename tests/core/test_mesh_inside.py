"""``core.mesh.inside.crossing_windings``: integer winding numbers of closed meshes from a ray's signed crossings,
checked against analytic insides, the solid-angle winding numbers, and itself with and without a tree."""

import numpy as np
import pytest

import core.mesh.inside as inside
import mesh_fixtures as fx
from core.mesh import Solid
from core.mesh.bvh import TriangleBVH
from core.mesh.inside import beyond_slabs, crossing_windings, solid_angle_windings
from core.mesh.stacked import StackedMeshes


def _both(mesh, points, points_move=True):
    """The windings through the mesh's tree and without one (every triangle box tested): they must agree."""
    with_tree = crossing_windings(mesh, points, points_move, bvh=TriangleBVH.build(mesh))
    without = crossing_windings(mesh, points, points_move)
    np.testing.assert_array_equal(with_tree, without)
    return with_tree


@pytest.mark.parametrize("name, shape, inside", [
    ("torus", fx.torus(2.0, 0.5, 32, 16), lambda p: np.hypot(np.hypot(p[:, 0], p[:, 1]) - 2.0, p[:, 2]) - 0.5),
    ("sphere", fx.uv_sphere(1.0, 16, 24), lambda p: np.linalg.norm(p, axis=1) - 1.0),
    ("box", fx.box((-1, -1, -1), (1, 1, 1)), lambda p: np.abs(p).max(axis=1) - 1.0),
])
def test_windings_are_one_inside_and_zero_outside(name, shape, inside):
    points = np.random.default_rng(3).uniform(-3, 3, size=(3000, 3)) * [1, 1, 0.5]
    signed = inside(points)
    clear = np.abs(signed) > 0.06  # away from the tessellated surface, where the analytic shape decides
    windings = _both(shape, points[clear])
    np.testing.assert_array_equal(windings, (signed[clear] < 0).astype(int))
    assert clear.sum() > 2000


def test_windings_are_the_solid_angle_winding_numbers_off_the_surface():
    link = fx.chain_link()
    points = np.random.default_rng(4).normal(scale=1.5, size=(1500, 3))
    reference = solid_angle_windings(link, points)
    off = np.abs(reference - np.round(reference)) < 1e-6  # not within rounding of the surface
    np.testing.assert_array_equal(_both(link, points[off]), np.round(reference[off]).astype(int))
    assert off.sum() > 1400 and (reference[off] > 0.5).sum() > 20


def test_overlapping_closed_parts_wind_twice():
    joined = fx.joined(fx.box((0, 0, 0), (2, 2, 2)), fx.box((1, 1, 1), (3, 3, 3)))
    points = np.array([[1.5, 1.5, 1.5], [0.5, 0.5, 0.5], [2.5, 2.5, 2.5], [2.5, 0.5, 0.5], [-1.0, 0.0, 0.0]])
    np.testing.assert_array_equal(_both(joined, points), [2, 1, 1, 0, 0])


def test_inside_out_meshes_wind_negatively():
    sphere = fx.uv_sphere(1.0, 8, 12)
    flipped = fx.mesh(sphere.vertices, sphere.triangles[:, ::-1])
    points = np.array([[0.0, 0.0, 0.0], [0.2, -0.3, 0.1], [2.0, 0.0, 0.0]])
    np.testing.assert_array_equal(_both(flipped, points), [-1, -1, 0])


def test_points_on_the_surface_are_decided_by_the_perturbation_the_same_way_every_time():
    """Vertices, edge midpoints and face centres of a box: the count is 0 or 1 (never half, never 2), the
    same with and without the tree, and moving the mesh instead of the points can only flip it."""
    cube = fx.box((0, 0, 0), (1, 1, 1))
    corners = cube.corners
    points = np.vstack([cube.vertices, 0.5 * (corners[:, 0] + corners[:, 1]), corners.mean(axis=1)])
    for points_move in (True, False):
        windings = _both(cube, points, points_move)
        assert set(windings.tolist()) <= {0, 1}
    # a point moved along the perturbation's first axis (+x) is inside exactly when it is at x = 0 (face)
    face_low_x = np.array([[0.0, 0.5, 0.5]])
    assert _both(cube, face_low_x, True)[0] == 1
    assert _both(cube, face_low_x, False)[0] == 0


def test_a_moved_solids_tree_gives_the_same_windings():
    torus = Solid(fx.torus(2.0, 0.5, 24, 12))
    matrix = np.eye(4)
    matrix[:3, :3] = fx.rotation_z(0.7) * 1.5
    matrix[:3, 3] = (0.3, -0.2, 0.1)
    moved = torus.transformed(matrix)
    points = np.random.default_rng(5).uniform(-4, 4, size=(800, 3)) * [1, 1, 0.4]
    np.testing.assert_array_equal(crossing_windings(moved.mesh, points, bvh=moved.bvh),
                                  crossing_windings(moved.mesh, points))


def test_points_are_tested_in_blocks_without_a_tree(monkeypatch):
    """Without a tree the box tests go in blocks of points; blocks of one point give the same windings."""
    torus = fx.torus(2.0, 0.5, 24, 12)
    points = np.random.default_rng(6).uniform(-3, 3, size=(300, 3)) * [1, 1, 0.3]
    whole = crossing_windings(torus, points)
    monkeypatch.setattr(inside, "CHUNK_TERMS", len(torus.triangles))
    np.testing.assert_array_equal(crossing_windings(torus, points), whole)
    assert whole.sum() > 10


def test_a_nearly_closed_mesh_still_has_an_inside_and_a_closed_one_counts_crossings():
    """A sphere with two faces missing: the generalized winding number is near 1 inside (away from the holes) and
    near 0 outside, against the analytic inside of the sphere; ``contains`` of the whole sphere uses the exact
    crossing count, which is the solid-angle sum rounded."""
    sphere = fx.uv_sphere(1.0, 16, 24)
    holed = fx.mesh(sphere.vertices, np.delete(sphere.triangles, [40, 41], axis=0))
    points = np.random.default_rng(5).uniform(-1.3, 1.3, size=(3000, 3))
    radius = np.linalg.norm(points, axis=1)
    clear = np.abs(radius - 1.0) > 0.1
    hole_centre = holed.vertices[sphere.triangles[40]].mean(axis=0)
    far_from_hole = np.linalg.norm(points - hole_centre, axis=1) > 0.4
    wanted = clear & far_from_hole
    np.testing.assert_array_equal(inside.contains(holed, points[wanted]), radius[wanted] < 1.0)
    generalized = inside.winding_numbers(holed, points[wanted])
    assert np.abs(generalized - (radius[wanted] < 1.0)).max() < 0.1  # two small holes: far from them, nearly 0 or 1
    exact = inside.winding_numbers(sphere, points[clear])
    np.testing.assert_array_equal(exact, np.round(solid_angle_windings(sphere, points[clear])))
    np.testing.assert_array_equal(inside.contains(sphere, points[clear], TriangleBVH.build(sphere)), radius[clear] < 1)


def _slab_meshes():
    rotation = fx.rotation_z(0.37) @ np.array([[1.0, 0.0, 0.0], [0.0, np.cos(0.9), -np.sin(0.9)],
                                               [0.0, np.sin(0.9), np.cos(0.9)]])
    return [fx.transformed(fx.uv_sphere(0.5, 32, 64), rotation, (0.3, -1e3, 7.0)), fx.torus(2.0, 0.5, 32, 16),
            fx.l_bracket(), fx.transformed(fx.chain_link(), rotation, (1e-7, 2.0, -3.0)), fx.box((0, 0, 0), (1e-9, 2, 3))]


def _points_near(mesh, rng):
    """Points on and about the surface: the vertices, one ulp off them either way, face centres, points a little
    off the faces along their normals, and random points in the box."""
    corners = mesh.corners
    normals = mesh.area_normals / np.linalg.norm(mesh.area_normals, axis=1)[:, None]
    low, high = mesh.box
    return np.concatenate([mesh.vertices, np.nextafter(mesh.vertices, np.inf), np.nextafter(mesh.vertices, -np.inf),
                           corners.mean(axis=1), corners.mean(axis=1) + 1e-9 * mesh.size * normals,
                           corners[:, 0] + 1e-3 * mesh.size * normals, rng.uniform(low, high, size=(3000, 3))])


def test_points_beyond_the_slabs_are_outside():
    """``beyond_slabs`` certifies only points whose winding number is 0, never a vertex (on the vertices' hull), and
    every point a little outside a sphere (6 % of its radius); meshes stacked give each point the answer of its own mesh alone."""
    rng = np.random.default_rng(11)
    meshes = _slab_meshes()
    points = [_points_near(mesh, rng) for mesh in meshes]
    stack = StackedMeshes(meshes)
    owners = np.concatenate([np.full(len(p), k) for k, p in enumerate(points)])
    together = beyond_slabs(stack, np.concatenate(points), owners)
    first = 0
    for k, (mesh, near) in enumerate(zip(meshes, points)):
        beyond = beyond_slabs(StackedMeshes([mesh]), near, np.zeros(len(near), dtype=np.int64))
        np.testing.assert_array_equal(together[first:first + len(near)], beyond)
        first += len(near)
        assert not crossing_windings(mesh, near[beyond]).any()
        assert not beyond[:3 * len(mesh.vertices)].any()  # the vertices and their neighbours a rounding away
        if k < 4:  # (the thin box's random points are all inside it)
            assert beyond.sum() > 0.1 * len(near)
    sphere = meshes[0]
    centre = sphere.vertices.mean(axis=0)
    directions = rng.normal(size=(2000, 3))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    assert beyond_slabs(StackedMeshes([sphere]), centre + 0.53 * directions, np.zeros(2000, dtype=np.int64)).all()
