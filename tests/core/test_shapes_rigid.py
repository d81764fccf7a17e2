"""Rigid-body shapes with Blender/Bullet's conventions, against analytic answers (boxes with margins,
a capsule resting on a box, spheres, cylinders, cones, hulls) and scipy's half-space intersection."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull, HalfspaceIntersection

import core
from core.shapes.primitives import Rounded
from core.shapes.rigid import DEFAULT_MARGIN, body_frame, effective_margin, rigid_body_shape, shrunk_hull
from generators import affine, box, cloud, rotation_about, unit_vectors

TOL = 1e-9
CUBE = ([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0])  # the default cube's local bounds


def world(location=(0, 0, 0), rotation=np.eye(3), scale=(1, 1, 1)) -> np.ndarray:
    """A Blender object matrix: translation @ rotation @ scale."""
    return affine(np.asarray(rotation) @ np.diag(scale), location)


def extent(shape, direction) -> float:
    """Support value of a shape along a unit direction, margin included."""
    d = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
    return float(np.dot(shape.support(tuple(d)), d)) + shape.margin


def test_effective_margin_follows_rbo_get_margin():
    assert effective_margin("BOX", 0.1, True) == 0.1
    assert effective_margin("BOX", 0.1, False) == DEFAULT_MARGIN
    assert effective_margin("CAPSULE", 0.3, False) == DEFAULT_MARGIN
    assert effective_margin("CONE", 0.1, False) == 0.1
    assert effective_margin("CONVEX_HULL", 0.2, False) == 0.2


@pytest.mark.parametrize("use_margin, margin", [(False, 0.5), (True, 0.1), (True, 0.0)])
def test_two_boxes_with_margin_meet_at_their_faces(use_margin, margin):
    a = rigid_body_shape("BOX", CUBE, world(), margin, use_margin=use_margin)
    b = rigid_body_shape("BOX", CUBE, world((0.3, 0.2, 1.95), scale=(0.5, 0.5, 0.5)), margin,
                         use_margin=use_margin)
    contact = core.collide(a, b)
    # B is half size: its bottom at 1.95 - 0.5 = 1.45, 0.45 above A's top
    assert contact.status == "separated" and contact.distance == pytest.approx(0.45, abs=TOL)
    sunk = rigid_body_shape("BOX", CUBE, world((0.3, 0.2, 1.45), scale=(0.5, 0.5, 0.5)), margin,
                            use_margin=use_margin)
    contact = core.collide(a, sunk)
    assert contact.status == "penetrating" and contact.depth == pytest.approx(0.05, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-9)


def test_box_margin_rounds_the_corners_only():
    shape = rigid_body_shape("BOX", CUBE, world(), 0.0, use_margin=False)  # 0.04 embedded
    assert isinstance(shape, Rounded) and shape.margin == DEFAULT_MARGIN
    for axis in np.eye(3):
        assert extent(shape, axis) == pytest.approx(1.0, abs=1e-15)
        assert extent(shape, -axis) == pytest.approx(1.0, abs=1e-15)
    corner = extent(shape, [1, 1, 1])
    assert corner == pytest.approx(np.sqrt(3) * (1 - DEFAULT_MARGIN) + DEFAULT_MARGIN, abs=1e-12)
    probe = np.array([[3.0, 3.0, 3.0]])
    expected = np.linalg.norm(probe[0] - (1 - DEFAULT_MARGIN)) - DEFAULT_MARGIN
    assert core.collide(shape, probe).distance == pytest.approx(expected, abs=TOL)


def test_rotated_scaled_box_keeps_its_outer_faces():
    turn = rotation_about([0, 0, 1], np.radians(30))
    matrix = world((1.0, -2.0, 0.5), turn, (2.0, 1.0, 0.5))
    shape = rigid_body_shape("BOX", ([-1, -0.5, -1], [1, 0.5, 1]), matrix, 0.1, use_margin=True)
    world_corners = box([1, 0.5, 1]) @ matrix[:3, :3].T + matrix[:3, 3]
    for face_normal in np.vstack([turn.T, -turn.T]):
        assert extent(shape, face_normal) == pytest.approx((world_corners @ face_normal).max(), abs=1e-12)


def test_the_shape_is_centred_on_the_origin_not_on_the_bounds():
    shape = rigid_body_shape("BOX", ([0, 0, 0], [2, 2, 2]), world((5, 0, 0)), 0.0, use_margin=True)
    low, high = shape.bounds()
    np.testing.assert_allclose(low, [4, -1, -1], atol=1e-15)
    np.testing.assert_allclose(high, [6, 1, 1], atol=1e-15)


def test_sphere_radius_is_the_largest_half_size_times_the_x_scale():
    sphere = rigid_body_shape("SPHERE", ([-1, -0.5, -0.2], [1, 0.5, 0.2]), world((1, 2, 3), scale=(2, 3, 1)),
                              0.3, use_margin=True)
    assert isinstance(sphere, core.Sphere)
    assert sphere.radius == 2.0
    np.testing.assert_allclose(sphere.center, [1, 2, 3])


CAPSULE_BOUNDS = ([-0.5, -0.5, -1.5], [0.5, 0.5, 1.5])  # radius 0.5, total length 3


@pytest.mark.parametrize("height, expected", [(1.5, 0.0), (1.4, -0.1), (1.75, 0.25)])
def test_capsule_lying_on_a_box(height, expected):
    table = rigid_body_shape("BOX", CUBE, world(), 0.04, use_margin=True)
    lying = rotation_about([1, 0, 0], np.pi / 2)  # its axis along y
    capsule = rigid_body_shape("CAPSULE", CAPSULE_BOUNDS, world((0.2, 0.0, height), lying), 0.04)
    assert capsule.radius == pytest.approx(0.5)
    np.testing.assert_allclose(sorted([capsule.a[1], capsule.b[1]]), [-1.0, 1.0], atol=1e-15)
    contact = core.collide(table, capsule)
    assert contact.signed_distance == pytest.approx(expected, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-9)
    assert contact.point_a[2] == pytest.approx(1.0, abs=TOL)


def test_capsule_scaling_follows_bullet_y_radius_and_z_length():
    capsule = rigid_body_shape("CAPSULE", CAPSULE_BOUNDS, world(scale=(1.0, 2.0, 3.0)), 0.0)
    assert capsule.radius == pytest.approx(1.0)  # 0.5 x the y scale
    np.testing.assert_allclose(sorted([capsule.a[2], capsule.b[2]]), [-3.0, 3.0])  # (1.5 - 0.5) x 3


def test_short_capsule_is_a_sphere():
    capsule = rigid_body_shape("CAPSULE", ([-1, -1, -0.5], [1, 1, 0.5]), world(), 0.0)
    np.testing.assert_allclose(capsule.a, capsule.b)
    assert capsule.radius == 1.0


def test_cylinder_keeps_its_outer_size_with_a_rounded_rim():
    cylinder = rigid_body_shape("CYLINDER", CUBE, world(), 0.0, use_margin=False)
    assert extent(cylinder, [1, 0, 0]) == pytest.approx(1.0, abs=1e-15)
    assert extent(cylinder, [0.6, 0.8, 0]) == pytest.approx(1.0, abs=1e-15)
    assert extent(cylinder, [0, 0, 1]) == pytest.approx(1.0, abs=1e-15)
    rim = extent(cylinder, [1, 0, 1])
    assert rim == pytest.approx(2 * (1 - DEFAULT_MARGIN) / np.sqrt(2) + DEFAULT_MARGIN, abs=1e-12)
    block = box([0.5, 0.5, 0.5]) + [1.4, 0.0, 0.0]
    contact = core.collide(cylinder, block, tolerance=1e-12)
    assert contact.depth == pytest.approx(0.1, abs=1e-9)


def test_cone_adds_its_margin_outside():
    cone = rigid_body_shape("CONE", CUBE, world(scale=(2.0, 4.0, 1.0)), 0.05, use_margin=False)
    assert extent(cone, [0, 0, 1]) == pytest.approx(1.05, abs=1e-15)  # apex up, margin outside
    assert extent(cone, [1, 0, 0]) == pytest.approx(3.0 + 0.05, abs=1e-12)  # radius x mean(2, 4)
    lid = box([2.0, 2.0, 0.1]) + [0, 0, 1.3]
    assert core.collide(cone, lid).distance == pytest.approx(1.2 - 1.0 - 0.05, abs=TOL)


def test_mirrored_objects_are_turned_not_mirrored():
    frame, scale = body_frame(world(scale=(-1.0, 1.0, 1.0)))
    np.testing.assert_allclose(frame[:3, :3], np.diag([1.0, -1.0, -1.0]), atol=1e-15)
    np.testing.assert_allclose(scale, [1, 1, 1])
    cone = rigid_body_shape("CONE", CUBE, world(scale=(-1.0, 1.0, 1.0)), 0.0)
    assert extent(cone, [0, 0, -1]) == pytest.approx(1.0) and extent(cone, [0, 0, 1]) == pytest.approx(1.0)
    slant = (np.sqrt(0.5), 0.0, -np.sqrt(0.5))  # the apex wins along it only if it points down
    np.testing.assert_allclose(cone.support(slant), [0, 0, -1], atol=1e-15)
    upright = rigid_body_shape("CONE", CUBE, world(), 0.0)
    np.testing.assert_allclose(upright.support(slant), [1, 0, -1], atol=1e-15)


def test_hull_of_a_cube_without_use_margin_is_the_box_shape():
    corners = box([1.0, 1.0, 1.0])
    matrix = world((0.5, -1.0, 2.0), rotation_about([1, 2, 3], 0.7), (1.5, 1.5, 1.5))
    hull = rigid_body_shape("CONVEX_HULL", CUBE, matrix, 0.3, corners, use_margin=False)
    cube = rigid_body_shape("BOX", CUBE, matrix, 0.3, use_margin=False)
    assert hull.margin == pytest.approx(DEFAULT_MARGIN * 1.5)
    # the hull is shrunk by 0.04 locally (0.06 once scaled) and rounded by 0.06, the box shrunk and
    # rounded by 0.04 in world units: the same faces, differently rounded corners
    diagonal = matrix[:3, :3] @ np.ones(3) / np.linalg.norm(matrix[:3, :3] @ np.ones(3))
    centre = matrix[:3, 3] @ diagonal
    assert extent(hull, diagonal) == pytest.approx(centre + np.sqrt(3) * 1.44 + 0.06, abs=1e-12)
    assert extent(cube, diagonal) == pytest.approx(centre + np.sqrt(3) * 1.46 + 0.04, abs=1e-12)
    for axis in np.vstack([matrix[:3, :3].T, -matrix[:3, :3].T]):
        assert extent(hull, axis) == pytest.approx(extent(cube, axis), abs=1e-12)


def test_hull_with_use_margin_is_inflated():
    points = cloud(np.random.default_rng(5), 60)
    low, high = points.min(axis=0), points.max(axis=0)
    shape = rigid_body_shape("CONVEX_HULL", (low, high), world(), 0.1, points, use_margin=True)
    for d in unit_vectors(np.random.default_rng(6), 20):
        assert extent(shape, d) == pytest.approx((points @ d).max() + 0.1, abs=1e-12)


def test_thin_hull_cannot_embed_its_margin():
    slab = box([1.0, 1.0, 0.025])
    shape = rigid_body_shape("CONVEX_HULL", ([-1, -1, -0.025], [1, 1, 0.025]), world(), 0.0, slab,
                             use_margin=False)
    assert shape.margin == 0.0
    assert extent(shape, [0, 0, 1]) == pytest.approx(0.025)


@pytest.mark.parametrize("seed", range(4))
def test_shrunk_hull_matches_scipy_halfspace_intersection(seed):
    rng = np.random.default_rng(seed)
    points = cloud(rng, 80) * 3.0
    amount = 0.05
    mine = shrunk_hull(points, amount)
    qhull = ConvexHull(points)
    shifted = qhull.equations.copy()
    shifted[:, 3] += amount  # n·x + offset <= 0 moved inward by amount
    centre = points.mean(axis=0)
    reference = HalfspaceIntersection(shifted, centre).intersections
    assert ConvexHull(mine).volume == pytest.approx(ConvexHull(reference).volume, rel=1e-9)
    gaps = np.linalg.norm(mine[:, None, :] - reference[None, :, :], axis=2)
    assert gaps.min(axis=1).max() <= 1e-9 and gaps.min(axis=0).max() <= 1e-9


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="kind"):
        rigid_body_shape("MESH", CUBE, world(), 0.04)
    with pytest.raises(ValueError, match="points"):
        rigid_body_shape("CONVEX_HULL", CUBE, world(), 0.04)
    with pytest.raises(ValueError, match="zero scale"):
        rigid_body_shape("BOX", CUBE, world(scale=(1, 0, 1)), 0.04)
    with pytest.raises(ValueError, match="low <= high"):
        rigid_body_shape("BOX", ([1, 1, 1], [0, 0, 0]), world(), 0.04)
