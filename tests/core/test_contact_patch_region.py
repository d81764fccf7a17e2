"""Contact regions of boxes and primitives against analytic patches (areas, centroids, segment ends)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull, HalfspaceIntersection

import core
from core.shapes.primitives import Capsule, Cylinder, Rounded
from core.contact_patch.region import contact_region
from generators import affine, box, random_rotation, rotation_about

TOL = 1e-9

#: Scene frames the same configuration is checked in: identity and an arbitrary rigid motion.
FRAMES = {"axis-aligned": affine(np.eye(3)),
          "rotated": affine(random_rotation(np.random.default_rng(5)), [3.0, -7.0, 2.0])}


def moved(matrix, point) -> np.ndarray:
    return matrix[:3, :3] @ np.asarray(point, dtype=float) + matrix[:3, 3]


def region_of(a, b, **options):
    contact = core.collide(a, b)
    region = contact_region(a, b, contact, **options)
    np.testing.assert_allclose(region.points_a - region.points_b,
                               -contact.signed_distance * np.broadcast_to(contact.normal, region.points_a.shape),
                               atol=TOL)
    np.testing.assert_allclose(region.centroid_a - region.centroid_b, -contact.signed_distance * contact.normal,
                               atol=TOL)
    return contact, region


def slab_and_box(frame, half_b, rotation_b, centre_b):
    """A wide slab (top face z = 0.5) and box B, both moved by ``frame``."""
    slab = core.Box([2.0, 2.0, 0.5], frame)
    other = core.Box(half_b, frame @ affine(rotation_b, centre_b))
    return slab, other


@pytest.mark.parametrize("frame", FRAMES.values(), ids=FRAMES.keys())
@pytest.mark.parametrize("gap", [-0.01, 0.0, 0.3])
def test_box_resting_on_a_box_gives_its_face(frame, gap):
    half = np.array([0.5, 0.3, 0.2])
    centre = np.array([0.4, -0.2, 0.5 + half[2] + gap])
    turn = rotation_about([0, 0, 1], 0.3)
    slab, small = slab_and_box(frame, half, turn, centre)
    contact, region = region_of(slab, small)
    assert contact.signed_distance == pytest.approx(gap, abs=TOL)
    assert region.kind == "polygon" and len(region.points_a) == 4
    assert region.area == pytest.approx(4 * half[0] * half[1], abs=TOL)
    np.testing.assert_allclose(region.centroid_a, moved(frame, [0.4, -0.2, 0.5]), atol=TOL)
    corners = (box(half) @ turn.T + centre)[box(half)[:, 2] < 0] - [0, 0, gap]
    expected = np.array([moved(frame, c) for c in corners])
    assert np.abs(region.points_a[:, None, :] - expected[None]).sum(axis=2).min(axis=1).max() <= TOL


def test_offset_equal_boxes_overlap_in_a_rectangle():
    a = core.Box([0.5, 0.5, 0.5])
    b = core.Box([0.5, 0.5, 0.5], affine(np.eye(3), [0.3, -0.2, 0.99]))
    contact, region = region_of(a, b)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-12)
    assert region.kind == "polygon"
    assert region.area == pytest.approx((1.0 - 0.3) * (1.0 - 0.2), abs=TOL)
    np.testing.assert_allclose(region.centroid_a, [0.15, -0.1, 0.5], atol=TOL)
    np.testing.assert_allclose(region.centroid_b, [0.15, -0.1, 0.49], atol=TOL)


@pytest.mark.parametrize("frame", FRAMES.values(), ids=FRAMES.keys())
def test_box_on_its_edge_gives_a_segment(frame):
    half = np.array([0.6, 0.25, 0.25])
    lift = 0.25 * np.sqrt(2.0)
    slab, edge_down = slab_and_box(frame, half, rotation_about([1, 0, 0], np.pi / 4), [0.1, 0.2, 0.5 + lift - 1e-3])
    _, region = region_of(slab, edge_down)
    assert region.kind == "segment" and region.area == 0.0
    ends = np.array([moved(frame, [0.1 + s * 0.6, 0.2, 0.5]) for s in (-1, 1)])
    assert min(np.abs(region.points_a - ends).max(), np.abs(region.points_a - ends[::-1]).max()) <= TOL
    np.testing.assert_allclose(region.centroid_a, moved(frame, [0.1, 0.2, 0.5]), atol=TOL)


@pytest.mark.parametrize("frame", FRAMES.values(), ids=FRAMES.keys())
def test_box_on_its_corner_gives_a_point(frame):
    tilt = rotation_about([1, -1, 0], np.arctan(np.sqrt(2.0)))  # takes the corner (1,1,1)/sqrt(3) to +z
    half = np.array([0.3, 0.3, 0.3])
    down = tilt @ (-half)
    slab, corner = slab_and_box(frame, half, tilt, [0.2, 0.1, 0.5 - down[2] + 0.05])
    _, region = region_of(slab, corner)
    assert region.kind == "point" and len(region.points_a) == 1
    np.testing.assert_allclose(region.points_b[0], moved(frame, [0.2 + down[0], 0.1 + down[1], 0.55]), atol=TOL)


def test_edge_across_edge_gives_their_crossing():
    a = core.Box([0.5, 0.5, 0.5], affine(rotation_about([1, 0, 0], np.pi / 4)))
    b = core.Box([0.5, 0.5, 0.5], affine(rotation_about([0, 1, 0], np.pi / 4), [0.1, 0.05, np.sqrt(2.0) + 0.2]))
    _, region = region_of(a, b)
    assert region.kind == "point"
    np.testing.assert_allclose(region.points_a[0], [0.1, 0.0, np.sqrt(0.5)], atol=TOL)


def test_separated_rotated_boxes_facing_each_other():
    rotation = random_rotation(np.random.default_rng(9))
    a = core.Box([0.4, 0.4, 0.4], affine(rotation))
    b = core.Box([0.2, 0.3, 0.25], affine(rotation @ rotation_about([0, 0, 1], 0.7), rotation @ [0.02, 0.0, 1.2]))
    contact, region = region_of(a, b)
    assert contact.signed_distance == pytest.approx(1.2 - 0.65, abs=TOL)
    assert region.kind == "polygon" and region.area == pytest.approx(4 * 0.2 * 0.3, abs=TOL)
    np.testing.assert_allclose(region.centroid_a, rotation @ [0.02, 0.0, 0.4], atol=TOL)
    np.testing.assert_allclose(region.centroid_b, rotation @ [0.02, 0.0, 0.95], atol=TOL)


def test_swapping_the_shapes_swaps_the_region():
    slab, small = slab_and_box(FRAMES["rotated"], [0.5, 0.3, 0.2], rotation_about([0, 0, 1], 0.3),
                               [0.4, -0.2, 0.69])
    _, forward = region_of(slab, small)
    _, backward = region_of(small, slab)
    assert backward.area == pytest.approx(forward.area, abs=TOL)
    np.testing.assert_allclose(backward.centroid_a, forward.centroid_b, atol=TOL)
    np.testing.assert_allclose(backward.centroid_b, forward.centroid_a, atol=TOL)


def test_point_clouds_are_exact_polytopes():
    corners = box([0.5, 0.3, 0.2]) + [0.0, 0.0, 0.69]
    _, region = region_of(core.Box([2.0, 2.0, 0.5]), corners)
    assert region.kind == "polygon" and region.area == pytest.approx(0.6, abs=TOL)


def test_curved_primitives_on_a_slab():
    slab = core.Box([2.0, 2.0, 0.5])
    r, h = 0.4, 0.3
    _, cap = region_of(slab, Cylinder(r, h, affine(np.eye(3), [0.1, 0.2, 0.5 + h - 0.01])))
    assert cap.kind == "polygon" and len(cap.points_a) == 32
    assert cap.area == pytest.approx(16 * r * r * np.sin(np.pi / 16), rel=1e-9)  # the inscribed 32-gon
    np.testing.assert_allclose(cap.centroid_a, [0.1, 0.2, 0.5], atol=TOL)
    lying = Cylinder(r, h, affine(rotation_about([1, 0, 0], np.pi / 2), [0.1, 0.2, 0.5 + r + 0.05]))
    _, side = region_of(slab, lying)
    assert side.kind == "segment"
    assert np.linalg.norm(side.points_b[1] - side.points_b[0]) == pytest.approx(2 * h, abs=TOL)
    _, capsule = region_of(slab, Capsule([-0.3, 0.0, 0.7], [0.3, 0.0, 0.7], 0.2))
    assert capsule.kind == "segment"
    np.testing.assert_allclose(np.sort(capsule.points_b[:, 0]), [-0.3, 0.3], atol=TOL)
    np.testing.assert_allclose(capsule.points_b[:, 2], [0.5, 0.5], atol=TOL)
    _, ball = region_of(slab, core.Sphere([0.3, 0.3, 0.9], 0.45))
    assert ball.kind == "point"
    np.testing.assert_allclose(ball.points_b[0], [0.3, 0.3, 0.45], atol=TOL)


def test_rounded_box_touches_with_its_core_face():
    slab = core.Box([2.0, 2.0, 0.5])
    rounded = Rounded(core.Box([0.3, 0.2, 0.1], affine(np.eye(3), [0.0, 0.0, 0.5 + 0.1 + 0.05 - 0.02])), 0.05)
    contact, region = region_of(slab, rounded)
    assert contact.signed_distance == pytest.approx(-0.02, abs=TOL)
    assert region.kind == "polygon" and region.area == pytest.approx(0.24, abs=TOL)
    np.testing.assert_allclose(region.centroid_b, [0.0, 0.0, 0.48], atol=TOL)  # on the rounded surface


def test_a_wider_slab_catches_nearly_parallel_faces():
    slab, tilted = slab_and_box(FRAMES["axis-aligned"], [0.5, 0.3, 0.2], rotation_about([1, 0, 0], 1e-6),
                                [0.0, 0.0, 0.69])
    assert region_of(slab, tilted)[1].kind == "segment"
    assert region_of(slab, tilted, tolerance=1e-5)[1].kind == "polygon"


def reference_overlap(ring_a: np.ndarray, ring_b: np.ndarray) -> tuple[float, np.ndarray]:
    """Area and centroid of the intersection of two convex counter-clockwise 2D rings (Qhull)."""
    halfspaces = []
    for ring in (ring_a, ring_b):
        edges = np.roll(ring, -1, axis=0) - ring
        outward = np.column_stack([edges[:, 1], -edges[:, 0]])
        halfspaces.append(np.column_stack([outward, -np.einsum("ij,ij->i", outward, ring)]))
    inside = 0.5 * (ring_a.mean(axis=0) + ring_b.mean(axis=0))
    corners = HalfspaceIntersection(np.vstack(halfspaces), inside).intersections
    hull = ConvexHull(corners)
    ring = corners[hull.vertices]
    twice = ring[:, 0] * np.roll(ring[:, 1], -1) - np.roll(ring[:, 0], -1) * ring[:, 1]
    centre = ((ring + np.roll(ring, -1, axis=0)) * twice[:, None]).sum(axis=0) / (3.0 * twice.sum())
    return hull.volume, centre


@pytest.mark.parametrize("seed", range(6))
def test_partly_overlapping_faces_match_qhull(seed):
    rng = np.random.default_rng(seed)
    half_a, half_b = rng.uniform(0.3, 0.8, 3), rng.uniform(0.3, 0.8, 3)
    angle, shift = rng.uniform(0, np.pi), rng.uniform(-0.6, 0.6, 2)
    turn = rotation_about([0, 0, 1], angle)
    a = core.Box(half_a)
    b = core.Box(half_b, affine(turn, [shift[0], shift[1], half_a[2] + half_b[2] - 0.01]))
    _, region = region_of(a, b)
    ring_a = box(half_a)[[0, 4, 6, 2], :2]  # bottom corners, counter-clockwise
    ring_b = (box(half_b)[[0, 4, 6, 2]] @ turn.T)[:, :2] + shift
    area, centre = reference_overlap(ring_a, ring_b)
    assert region.kind == "polygon" and region.area == pytest.approx(area, abs=TOL)
    np.testing.assert_allclose(region.centroid_a[:2], centre, atol=TOL)
