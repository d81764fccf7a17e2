"""Overlapping small convex objects measured by batched SAT (``core.mesh.contact.sat_pairs``), against the Qhull
reference of the Minkowski difference, EPA's answers (``collide_solids``) and analytic boxes."""

import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh import Solid, collide_solid_pairs, collide_solids
from core.mesh.contact.sat_pairs import sat_contacts, sat_ready
from generators import random_rotation
from reference import reference_contact
from test_mesh_convex_volume import hull_mesh


def overlapping_pairs(seed: int, count: int) -> list:
    """Boxes, wedges and small hulls, randomly placed, most of them overlapping."""
    rng = np.random.default_rng(seed)
    shapes = [lambda: fx.box((-1, -0.5, -0.3), (1, 0.5, 0.3)), lambda: hull_mesh(rng.normal(size=(12, 3))),
              lambda: fx.extrude([(0, 0), (2, 0), (0, 1)], -0.4, 0.4)]
    pairs = []
    for k in range(count):
        a = fx.transformed(shapes[k % 3](), random_rotation(rng), rng.uniform(-0.2, 0.2, 3))
        b = fx.transformed(shapes[(k // 3) % 3](), random_rotation(rng), rng.uniform(-0.9, 0.9, 3))
        pairs.append((Solid(a), Solid(b)))
    return pairs


def test_small_convex_objects_qualify_and_others_do_not():
    assert Solid(fx.box()).hull_features is not None
    assert Solid(fx.uv_sphere(1.0, 12, 16)).hull_features is None  # more vertices than SAT takes
    assert Solid(fx.l_bracket()).hull_features is None  # not convex
    normals, edges = Solid(fx.box()).hull_features
    assert len(normals) == 6 and len(edges) == 3  # the diagonals inside the faces are no edges of the hull
    np.testing.assert_allclose(np.abs(edges) @ np.abs(edges).T, np.eye(3), atol=1e-15)


def test_depths_match_the_reference_and_epa():
    pairs = overlapping_pairs(3, 60)
    contacts = sat_contacts(pairs)
    measured = 0
    for (a, b), contact in zip(pairs, contacts):
        assert sat_ready(a, b)
        reference = reference_contact(a.mesh.vertices, b.mesh.vertices)
        if contact is None:  # not clearly penetrating: left to EPA
            assert reference.signed_distance > -4.0 * collide_solids(a, b).tolerance
            continue
        measured += 1
        size = reference.size
        assert contact.signed_distance == pytest.approx(reference.signed_distance, abs=1e-12 * size)
        assert reference.separation_along(contact.normal) == pytest.approx(contact.signed_distance, abs=1e-12 * size)
        np.testing.assert_allclose(contact.point_a - contact.point_b, -contact.signed_distance * contact.normal,
                                   atol=1e-15 * size)
        epa = collide_solids(a, b)
        assert epa.signed_distance == pytest.approx(contact.signed_distance, abs=1e-9 * size)
    assert measured >= 40


def test_clash_pairs_through_sat_keep_epa_answers_and_regions():
    pairs = overlapping_pairs(8, 45)
    together = collide_solid_pairs(pairs)
    for (a, b), contact in zip(pairs, together):
        alone = collide_solids(a, b)  # EPA, one pair at a time
        size = max(np.ptp(np.vstack([a.mesh.vertices, b.mesh.vertices]), axis=0))
        assert contact.status == alone.status
        assert contact.signed_distance == pytest.approx(alone.signed_distance, abs=1e-9 * size)
        if contact.status == 'penetrating':
            assert contact.region is not None and alone.region is not None
            assert contact.region.area == pytest.approx(alone.region.area, abs=1e-9 * size * size)
            assert contact.overlap_volume == pytest.approx(alone.overlap_volume, rel=1e-12)
            np.testing.assert_allclose(contact.point_a - contact.point_b, contact.depth * contact.normal,
                                       atol=1e-12 * size)


@pytest.mark.parametrize("offset, depth, normal", [
    ((0.7, 0.1, 0.05), 0.3, (1, 0, 0)),   # face against face: the shallowest axis is x
    ((0.05, -0.8, 0.1), 0.2, (0, -1, 0)),
    ((0.2, 0.3, 0.9), 0.1, (0, 0, 1)),
])
def test_aligned_boxes_are_exact(offset, depth, normal):
    a, b = Solid(fx.box()), Solid(fx.transformed(fx.box(), offset=offset))
    [contact] = sat_contacts([(a, b)])
    assert contact.depth == pytest.approx(depth, abs=1e-15)
    np.testing.assert_array_equal(contact.normal, normal)
    [answer] = collide_solid_pairs([(a, b)])
    assert answer.region.kind == "polygon"
    expected_area = np.prod([1.0 - abs(o) for o, n in zip(offset, normal) if n == 0])
    assert answer.region.area == pytest.approx(expected_area, rel=1e-12)


def test_touching_and_barely_overlapping_pairs_are_left_to_epa():
    a = Solid(fx.box())
    touching = Solid(fx.transformed(fx.box(), offset=(1.0, 0.2, 0.0)))
    barely = Solid(fx.transformed(fx.box(), offset=(1.0 - 1e-13, 0.2, 0.0)))
    assert sat_contacts([(a, touching), (a, barely)]) == [None, None]
    assert [c.status for c in collide_solid_pairs([(a, touching), (a, barely)])] == ['touching', 'touching']


def test_batches_of_any_size_give_the_same_answers(monkeypatch):
    import core.mesh.contact.sat_pairs as sat_pairs
    pairs = overlapping_pairs(5, 20)
    whole = sat_contacts(pairs)
    monkeypatch.setattr(sat_pairs, "BATCH_TERMS", 1)  # one pair per batch
    for one, together in zip(sat_contacts(pairs), whole):
        assert (one is None) == (together is None)
        if one is not None:
            assert one.signed_distance == together.signed_distance
            np.testing.assert_array_equal(one.normal, together.normal)
