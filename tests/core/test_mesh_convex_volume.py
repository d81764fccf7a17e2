"""Overlap volume of convex meshes by clipping, against manifold3d's booleans, the general method and
analytic answers (shared faces, identical shapes, containment, touching)."""

import numpy as np
import pytest
from scipy.spatial import ConvexHull

import mesh_fixtures as fx
from core.mesh import Solid, collide_solid_pairs, collide_solids
from core.mesh.convex_volume import convex_overlap_volume, convex_overlap_volumes
from core.mesh.volume import mesh_volume, overlap_volume
from generators import random_rotation


def hull_mesh(points) -> fx.TriangleMesh:
    """scipy's hull of ``points`` as an outward mesh (an independent triangulation)."""
    hull = ConvexHull(np.asarray(points, dtype=np.float64))
    used, triangles = np.unique(hull.simplices, return_inverse=True)
    points, triangles = hull.points[used], triangles.reshape(-1, 3)
    corners = points[triangles] - points.mean(axis=0)
    inward = np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])) < 0.0
    return fx.mesh(points, np.where(inward[:, None], triangles[:, ::-1], triangles))


def random_pairs(seed: int, count: int) -> list:
    rng = np.random.default_rng(seed)
    pairs = []
    for k in range(count):
        if k % 3 == 0:
            a = fx.transformed(fx.box((-1, -1, -1), (1, 1, 1)), random_rotation(rng))
            b = fx.transformed(fx.box((-1, -1, -1), (1, 1, 1)), random_rotation(rng), rng.uniform(-1.8, 1.8, 3))
        elif k % 3 == 1:
            a = hull_mesh(rng.normal(size=(40, 3)))
            b = hull_mesh(rng.normal(size=(30, 3)) * rng.uniform(0.3, 1.5) + rng.uniform(-1.5, 1.5, 3))
        else:
            a = fx.uv_sphere(1.0, 8, 12)
            b = fx.transformed(hull_mesh(rng.normal(size=(20, 3))), random_rotation(rng), rng.uniform(-1.5, 1.5, 3))
        pairs.append((a, b))
    return pairs


def assert_same_overlap(answer, reference, scale):
    volume, centroid = answer
    expected, expected_centroid = reference
    assert volume == pytest.approx(expected, abs=1e-12 * scale)
    if expected_centroid is None:
        assert volume == 0.0 and centroid is None
    else:
        np.testing.assert_allclose(centroid, expected_centroid, atol=1e-9)


def test_random_convex_pairs_match_manifold3d_one_by_one_and_in_a_batch():
    pairs = random_pairs(7, 36)
    batch = convex_overlap_volumes(pairs)
    overlapping = 0
    for (a, b), batched in zip(pairs, batch):
        scale = max(mesh_volume(a), mesh_volume(b))
        reference = fx.manifold_overlap(a, b)
        assert_same_overlap(batched, reference, scale)
        assert_same_overlap(convex_overlap_volume(a, b), reference, scale)
        overlapping += reference[0] > 0.0
    assert overlapping >= 20  # the draw mostly overlaps, so the clipping is exercised


def test_pairs_clipped_together_are_each_clipped_alone_bit_for_bit():
    """A batch finds its pairs' near triangles in one pass over every distinct mesh and clips both sides of every
    pair in the same rounds: each pair's volume and centroid are still those of the pair clipped alone, to the bit,
    meshes shared by several pairs (either side) and pairs whose triangles are all kept whole included."""
    pairs = random_pairs(3, 30)
    shared = pairs[1][0]
    pairs += [(shared, b) for _a, b in pairs[:6]] + [(a, shared) for a, _b in pairs[6:12]]
    pairs.append((fx.box(), fx.box((-1.0, -1.0, -1.0), (2.0, 2.0, 2.0))))  # inside: nothing clipped
    for (a, b), (volume, centroid) in zip(pairs, convex_overlap_volumes(pairs)):
        alone, alone_centroid = convex_overlap_volume(a, b)
        assert volume == alone
        assert (centroid is None) == (alone_centroid is None)
        assert centroid is None or centroid.tobytes() == alone_centroid.tobytes()


@pytest.mark.parametrize("offset, expected", [
    ((0.0, 0.0, 0.0), 1.0),          # identical boxes: all of it
    ((0.5, 0.0, 0.0), 0.5),          # four faces in common planes, same orientation
    ((0.5, 0.25, 0.0), 0.375),
    ((1.0, 0.0, 0.0), 0.0),          # sharing a face: touching, no volume
    ((1.0, 1.0, 1.0), 0.0),          # sharing a corner
    ((2.0, 0.0, 0.0), 0.0),
])
def test_axis_aligned_boxes_in_common_planes(offset, expected):
    a, b = fx.box(), fx.box(np.add((0, 0, 0), offset), np.add((1, 1, 1), offset))
    volume, centroid = convex_overlap_volume(a, b)
    assert volume == pytest.approx(expected, abs=1e-15)
    assert convex_overlap_volume(b, a)[0] == pytest.approx(expected, abs=1e-15)
    if expected:
        low, high = np.maximum(0.0, offset), np.minimum(1.0, np.add(1.0, offset))
        np.testing.assert_allclose(centroid, 0.5 * (low + high), atol=1e-15)
    else:
        assert centroid is None


@pytest.mark.parametrize("axis", range(3))
@pytest.mark.parametrize("ulps", [-1.0, 1.0, -3.0])
def test_a_copy_moved_by_a_few_ulps_overlaps_all_of_it(axis, ulps):
    """A box and its copy moved by a few ulps along an axis: one face of each lies a rounding outside the other's
    face plane; the clipping takes such a face as lying on the plane, so it must not be screened out before."""
    a = fx.transformed(fx.box((0.0, 0.0, 0.0), (1.125, 1.0546875, 0.640625)), offset=(-0.5625, -0.5234375, -0.3203125))
    b = fx.mesh(a.vertices + ulps * np.spacing(0.5625) * np.eye(3)[axis], a.triangles)
    expected = fx.manifold_overlap(a, b)[0]
    assert expected == pytest.approx(mesh_volume(a), rel=1e-14)
    for first, second in ((a, b), (b, a)):
        assert convex_overlap_volume(first, second)[0] == pytest.approx(expected, rel=1e-14)
    assert collide_solids(Solid(a), Solid(b)).overlap_volume == pytest.approx(expected, rel=1e-14)


def test_containment_gives_the_inner_volume_and_centroid():
    outer = fx.uv_sphere(2.0, 16, 24)
    inner = fx.transformed(fx.box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)), random_rotation(np.random.default_rng(3)),
                           (0.3, -0.2, 0.1))
    for a, b in ((outer, inner), (inner, outer)):
        volume, centroid = convex_overlap_volume(a, b)
        assert volume == pytest.approx(1.0, rel=1e-13)
        np.testing.assert_allclose(centroid, (0.3, -0.2, 0.1), atol=1e-13)


def test_agrees_with_the_general_method_far_from_the_origin_and_with_slivers():
    rng = np.random.default_rng(11)
    far = np.array([2e5, -3e5, 1e5])
    # a thin fan of near-collinear points makes sliver triangles on the hull
    sliver = np.vstack([rng.normal(size=(12, 3)), np.c_[np.linspace(-1, 1, 9), 1e-7 * rng.normal(size=(9, 2))]])
    pairs = [(fx.transformed(hull_mesh(sliver), offset=far),
              fx.transformed(hull_mesh(rng.normal(size=(25, 3))), random_rotation(rng), far + (0.4, 0.1, 0.0)))
             for _ in range(6)]
    for (a, b), answer in zip(pairs, convex_overlap_volumes(pairs)):
        assert_same_overlap(answer, overlap_volume(a, b), max(mesh_volume(a), mesh_volume(b)) * 1e2)


def test_solid_pairs_report_the_clipped_volume():
    pairs = [(Solid(a), Solid(b)) for a, b in random_pairs(5, 12)]
    together = collide_solid_pairs(pairs)
    for (a, b), contact in zip(pairs, together):
        alone = collide_solids(a, b)
        assert contact.status == alone.status
        if contact.status == 'penetrating':
            reference, _ = fx.manifold_overlap(a.mesh, b.mesh)
            assert contact.overlap_volume == pytest.approx(reference, abs=1e-12 * mesh_volume(a.mesh))
            assert alone.overlap_volume == pytest.approx(contact.overlap_volume, abs=1e-14)
            np.testing.assert_allclose(contact.signed_distance, alone.signed_distance, atol=1e-12)


def test_objects_convex_only_to_float32_keep_the_exact_general_volume():
    """A UV sphere rounded to float32 is convex within 1e-6, not to rounding: its triangles' planes cut
    slivers off it, so the clash check measures its volume with the general method (exact about the mesh)."""
    rng = np.random.default_rng(2)
    sphere = fx.uv_sphere(1.0, 10, 14)
    rounded = fx.mesh(sphere.vertices.astype(np.float32).astype(np.float64) @ random_rotation(rng).T, sphere.triangles)
    box = fx.transformed(fx.box((-0.7, -0.7, -0.7), (0.7, 0.7, 0.7)), random_rotation(rng), (0.3, 0.2, -0.1))
    a, b = Solid(rounded), Solid(box)
    assert a.method == 'convex' and not a.exactly_convex and b.exactly_convex
    exact, _ = overlap_volume(rounded, box)
    assert abs(convex_overlap_volume(rounded, box)[0] - exact) > 1e-12 * exact  # the clipping would be off
    [contact] = collide_solid_pairs([(a, b)])
    assert contact.overlap_volume == pytest.approx(exact, rel=1e-14)
    assert contact.overlap_volume == pytest.approx(fx.manifold_overlap(rounded, box)[0], rel=1e-12)


def test_volumes_can_be_left_for_later_and_nothing_else_changes():
    """``volumes=False`` (the live update while objects move): overlapping pairs come without their volume,
    marked pending; every other number is the full answer's, and pairs that do not overlap are unchanged."""
    pairs = [(Solid(a), Solid(b)) for a, b in random_pairs(7, 12)]
    pairs.append((Solid(fx.box(), use_hull=True), Solid(fx.box((0.5, 0.5, 0.5), (2, 2, 2)))))  # hulls: no volume
    full = collide_solid_pairs(pairs, clearance=0.5)
    quick = collide_solid_pairs(pairs, clearance=0.5, volumes=False)
    assert {c.status for c in full} >= {'penetrating', 'separated'}
    for whole, light in zip(full, quick):
        assert light.volume_pending == (whole.overlap_volume is not None and whole.status == 'penetrating')
        assert not whole.volume_pending
        assert light.overlap_volume == (None if light.volume_pending else whole.overlap_volume)
        assert (light.status, light.signed_distance, light.method) == (whole.status, whole.signed_distance,
                                                                       whole.method)
        np.testing.assert_array_equal(light.normal, whole.normal)
        np.testing.assert_array_equal(light.point_a, whole.point_a)
        np.testing.assert_array_equal(light.point_b, whole.point_b)
