"""``contact_regions`` (many pairs at once) against ``contact_region`` pair by pair and analytic patches;
``convex_polygon`` on one to three points against Qhull."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull

import core
import core.contact_patch.batch
from core.shapes.hull import convex_polygon
from core.shapes.primitives import Capsule, Cylinder, Rounded
from core.contact_patch.batch import contact_regions
from core.contact_patch.region import contact_region
from generators import affine, cloud, cylinder, random_rotation, rotation_about, sphere

GAPS = (-0.05, -1e-3, 0.0, 0.0, 1e-3, 0.05)


@pytest.fixture(autouse=True)
def batch_every_pair(monkeypatch):
    """Even one or two pairs go through the lockstep path here."""
    monkeypatch.setattr(core.contact_patch.batch, "MIN_BATCH_PAIRS", 1)


def stacked(rng, frame, half_a, half_b, turn, gap):
    """Box A and box B turned by ``turn`` and resting on A's top face across ``gap``, both moved by ``frame``."""
    lift = half_a[2] + np.abs(turn @ np.diag(half_b)).sum(axis=1)[2] + gap
    shift = rng.uniform(-1.0, 1.0, 2) * half_a[:2]
    return core.Box(half_a, frame), core.Box(half_b, frame @ affine(turn, [shift[0], shift[1], lift]))


def scenario(rng, kind: str, frame: np.ndarray):
    """A pair of shapes meeting (or nearly) in a ``kind`` of way."""
    half_a, half_b, gap = rng.uniform(0.2, 1.0, 3), rng.uniform(0.2, 1.0, 3), float(rng.choice(GAPS))
    spin = rotation_about([0, 0, 1], rng.uniform(0.0, np.pi))
    if kind == "face":
        return stacked(rng, frame, half_a, half_b, spin if rng.random() < 0.7 else np.eye(3), gap)
    if kind == "edge":
        return stacked(rng, frame, half_a, half_b, spin @ rotation_about([1, 0, 0], np.pi / 4), gap)
    if kind == "corner":
        return stacked(rng, frame, half_a, half_b, spin @ random_rotation(rng), gap)
    if kind == "edge-edge":
        a = core.Box(half_a, frame @ affine(rotation_about([1, 0, 0], np.pi / 4)))
        turn = spin @ rotation_about([0, 1, 0], np.pi / 4)
        lift = sum(np.abs(r @ np.diag(h)).sum(axis=1)[2] for r, h in ((rotation_about([1, 0, 0], np.pi / 4), half_a),
                                                                      (turn, half_b)))
        return a, core.Box(half_b, frame @ affine(turn, [*rng.uniform(-0.1, 0.1, 2), lift + gap]))
    if kind == "flush":  # faces whose sides line up, or overlap at a corner, to within about the slab
        half_b[:2] = np.where(rng.random(2) < 0.5, half_a[:2], half_b[:2])
        nudge = rng.choice([0.0, 1e-11, -1e-11, 1e-9, -1e-9, 1e-7], size=2)
        side = rng.choice([-1.0, 1.0], size=2) * rng.choice([0.0, 1.0], size=2)
        shift = side * (half_a[:2] + half_b[:2] * np.where(rng.random() < 0.5, -1.0, 1.0)) + nudge
        lift = half_a[2] + half_b[2] + gap
        return core.Box(half_a, frame), core.Box(half_b, frame @ affine(np.eye(3), [*shift, lift]))
    if kind == "thin":  # faces tilted by less and by more than the slab
        tilt = rotation_about([*rng.normal(size=2), 0.0], 10.0 ** rng.uniform(-13, -6))
        return stacked(rng, frame, half_a, half_b, tilt, gap)
    if kind == "big" and rng.random() < 0.5:  # hulls of more vertices than the table takes, overlapping
        a = core.Polytope(sphere(int(rng.integers(65, 400)), rng.uniform(0.3, 0.6)), frame)
        return a, core.Polytope(cloud(rng, int(rng.integers(65, 200))),
                                frame @ affine(random_rotation(rng), rng.uniform(-0.5, 0.5, 3)))
    if kind in ("prism", "big"):  # tessellated cylinders standing or lying on a box: caps of up to 32 corners
        segments = int(rng.integers(3, 33) if kind == "prism" else rng.integers(33, 80))  # (big: more than a table)
        turn = spin if rng.random() < 0.5 else spin @ rotation_about([1, 0, 0], np.pi / 2)
        prism = cylinder(segments, 0.4, 0.6)
        lift = half_a[2] - (prism @ turn.T)[:, 2].min() + gap
        return core.Box(half_a, frame), core.Polytope(prism, frame @ affine(turn, [*rng.uniform(-0.2, 0.2, 2), lift]))
    if kind == "hull":
        a = core.Polytope(cloud(rng, int(rng.integers(4, 30))), frame)
        return a, core.Polytope(cloud(rng, int(rng.integers(4, 30))),
                                frame @ affine(random_rotation(rng), rng.uniform(-0.3, 0.3, 3)))
    if kind == "flat":  # points, segments and polygons (with repeated and collinear points) lying on a box
        count = int(rng.integers(1, 8))
        flat = np.column_stack([rng.integers(-2, 3, size=(count, 2)) * 0.25, np.zeros(count)])
        return core.Polytope(flat, frame), core.Box(half_b, frame @ affine(spin, [0.0, 0.0, half_b[2] + gap]))
    # a sphere or a rounded box on a box
    top = half_a[2] + gap
    if rng.random() < 0.5:
        return core.Box(half_a, frame), core.Sphere(frame[:3, :3] @ [0.1, 0.0, top + 0.3] + frame[:3, 3], 0.3)
    return core.Box(half_a, frame), Rounded(core.Box(half_b, frame @ affine(spin, [0.1, 0.0, top + half_b[2] + 0.05])),
                                            0.05)


def assert_same_region(batched, alone):
    """Kind, points in order, area and centroids equal to rounding (relative to the coordinates)."""
    atol = 1e-12 * (1.0 + np.abs(alone.points_a).max())
    assert batched.kind == alone.kind
    assert batched.points_a.shape == alone.points_a.shape
    for name in ("points_a", "points_b", "centroid_a", "centroid_b"):
        np.testing.assert_allclose(getattr(batched, name), getattr(alone, name), rtol=0, atol=atol, err_msg=name)
    assert batched.area == pytest.approx(alone.area, rel=0, abs=atol)


@pytest.mark.parametrize("kind", ["face", "flush", "edge", "corner", "edge-edge", "thin", "prism", "big", "hull",
                                  "flat", "rounded"])
def test_batched_regions_are_the_pairwise_ones(kind):
    rng = np.random.default_rng(sum(map(ord, kind)))
    pairs = []
    for far in (0.0, 1e4):  # near the origin and far from it
        for _ in range(40):
            frame = affine(random_rotation(rng), rng.uniform(-1.0, 1.0, 3) * max(far, 1.0))
            pairs.append(scenario(rng, kind, frame))
    if kind in ("hull", "flat", "big"):
        pairs += [(b, a) for a, b in pairs[::2]]
    contacts = [core.collide(a, b) for a, b in pairs]
    batched = contact_regions([a for a, _b in pairs], [b for _a, b in pairs], contacts)
    alone = [contact_region(a, b, contact) for (a, b), contact in zip(pairs, contacts)]
    for one, other in zip(batched, alone):
        assert_same_region(one, other)
    kinds = {region.kind for region in alone}
    expected = {"face": {"polygon"}, "flush": {"point", "segment", "polygon"}, "edge": {"segment"},
                "corner": {"point"}, "edge-edge": {"point"}, "thin": {"polygon", "segment"},
                "prism": {"polygon", "segment"}, "hull": {"point"},
                "big": {"point", "segment", "polygon"},
                "flat": {"point", "segment", "polygon"}, "rounded": {"point", "polygon"}}[kind]
    assert expected <= kinds


def test_stacked_boxes_give_their_overlap_rectangles():
    rng = np.random.default_rng(3)
    frame = affine(random_rotation(rng), [30.0, -20.0, 10.0])
    pairs, rectangles = [], []
    for _ in range(50):
        half_a, half_b, gap = rng.uniform(0.3, 1.0, 3), rng.uniform(0.3, 1.0, 3), float(rng.choice(GAPS))
        centre = np.append(rng.uniform(-1.0, 1.0, 2) * (half_a[:2] + half_b[:2]) * 0.9, half_a[2] + half_b[2] + gap)
        pairs.append((core.Box(half_a, frame), core.Box(half_b, frame @ affine(np.eye(3), centre))))
        low = np.maximum(-half_a[:2], centre[:2] - half_b[:2])
        high = np.minimum(half_a[:2], centre[:2] + half_b[:2])
        rectangles.append((low, high, half_a[2], gap))
    contacts = [core.collide(a, b) for a, b in pairs]
    regions = contact_regions([a for a, _b in pairs], [b for _a, b in pairs], contacts)
    inverse = np.linalg.inv(frame)
    for region, (low, high, top, gap) in zip(regions, rectangles):
        assert region.kind == "polygon" and len(region.points_a) == 4
        assert region.area == pytest.approx(np.prod(high - low), abs=1e-9)
        local_a = region.points_a @ inverse[:3, :3].T + inverse[:3, 3]
        local_b = region.points_b @ inverse[:3, :3].T + inverse[:3, 3]
        np.testing.assert_allclose(np.sort(local_a[:, 0]), [low[0], low[0], high[0], high[0]], atol=1e-9)
        np.testing.assert_allclose(np.sort(local_a[:, 1]), [low[1], low[1], high[1], high[1]], atol=1e-9)
        np.testing.assert_allclose(local_a[:, 2], top, atol=1e-9)
        np.testing.assert_allclose(local_b[:, 2], top + gap, atol=1e-9)
        centre = frame[:3, :3] @ np.append(0.5 * (low + high), top) + frame[:3, 3]
        np.testing.assert_allclose(region.centroid_a, centre, atol=1e-9)


def test_boxes_on_an_edge_and_on_a_corner():
    slab = core.Box([2.0, 2.0, 0.5])
    half = np.array([0.6, 0.25, 0.25])
    edge_down = core.Box(half, affine(rotation_about([1, 0, 0], np.pi / 4), [0.1, 0.2, 0.5 + 0.25 * np.sqrt(2.0)]))
    tilt = rotation_about([1, -1, 0], np.arctan(np.sqrt(2.0)))  # takes the corner (1,1,1)/sqrt(3) to +z
    down = tilt @ [-0.3, -0.3, -0.3]
    corner_down = core.Box([0.3, 0.3, 0.3], affine(tilt, [0.2, 0.1, 0.5 - down[2] - 0.01]))
    contacts = [core.collide(slab, edge_down), core.collide(slab, corner_down)]
    edge, corner = contact_regions([slab, slab], [edge_down, corner_down], contacts)
    assert edge.kind == "segment" and edge.area == 0.0
    np.testing.assert_allclose(np.sort(edge.points_a[:, 0]), [0.1 - 0.6, 0.1 + 0.6], atol=1e-12)
    np.testing.assert_allclose(edge.points_a[:, 1:], [[0.2, 0.5], [0.2, 0.5]], atol=1e-12)
    assert corner.kind == "point"
    np.testing.assert_allclose(corner.points_b[0], [0.2 + down[0], 0.1 + down[1], 0.49], atol=1e-12)


def test_a_wider_slab_catches_nearly_parallel_faces():
    slab = core.Box([2.0, 2.0, 0.5])
    tilted = core.Box([0.5, 0.3, 0.2], affine(rotation_about([1, 0, 0], 1e-6), [0.0, 0.0, 0.69]))
    contact = core.collide(slab, tilted)
    for tolerance, kind in ((None, "segment"), (1e-5, "polygon")):
        [region] = contact_regions([slab], [tilted], [contact], tolerance=tolerance)
        assert region.kind == kind
        assert_same_region(region, contact_region(slab, tilted, contact, tolerance=tolerance))


def test_curved_and_large_shapes_join_the_batch_with_their_own_features():
    slab = core.Box([2.0, 2.0, 0.5])
    others = [Cylinder(0.4, 0.3, affine(np.eye(3), [0.1, 0.2, 0.79])),
              Capsule([-0.3, 0.0, 0.69], [0.3, 0.0, 0.69], 0.2),
              core.Polytope(sphere(300, 0.4) + [0.0, 0.0, 0.89]),  # more vertices than a batch takes
              core.Box([0.2, 0.2, 0.2], affine(np.eye(3), [0, 0, 0.7])),
              np.array([[0.0, 0.0, 0.5], [0.3, 0.0, 0.5], [0.0, 0.3, 0.6]])]  # a point cloud
    contacts = [core.collide(slab, other) for other in others]
    regions = contact_regions([slab] * len(others), others, contacts, samples=16)
    assert [region.kind for region in regions] == ["polygon", "segment", "point", "polygon", "segment"]
    for region, other, contact in zip(regions, others, contacts):
        assert_same_region(region, contact_region(slab, other, contact, samples=16))
    assert len(regions[0].points_a) == 16


def test_no_pairs_and_mismatched_lengths():
    assert contact_regions([], [], []) == []
    box = core.Box([0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="length"):
        contact_regions([box], [box, box], [core.collide(box, box)])


@pytest.mark.parametrize("seed", range(3))
def test_convex_polygon_of_one_to_three_points_matches_qhull(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        triangle = rng.normal(size=(3, 2)) * 10.0 ** rng.uniform(-3, 3) + rng.normal(size=2) * 1e3
        ring = convex_polygon(triangle, 0.0)
        hull = ConvexHull(triangle)  # counter-clockwise in 2D
        major = int(np.argmax(np.ptp(triangle, axis=0)))
        start = list(hull.vertices).index(np.lexsort((triangle[:, 1 - major], triangle[:, major]))[0])
        assert ring.tolist() == np.roll(hull.vertices, -start).tolist()
    line = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 0.5 + 1e-9]])  # the middle point within the tolerance
    assert convex_polygon(line, 1e-8).tolist() == [0, 1]
    assert convex_polygon(line, 1e-10).tolist() == [0, 1, 2]  # counter-clockwise: the middle point lies left
    assert convex_polygon(line[[1, 0]], 1e-8).tolist() == [1, 0]
    assert convex_polygon(np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]), 1e-8).tolist() == [0]
    assert convex_polygon(np.array([[1.0, 2.0]])).tolist() == [0]
