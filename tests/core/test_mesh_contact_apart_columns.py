"""Separated pairs as columns (``core.narrowphase.batch.screen_many``, ``core.mesh.measure_solid_pairs``): the same answers
as the per-pair functions, and apart pairs' distances against coal's exact mesh distance."""

from __future__ import annotations

import numpy as np
import pytest

import core
from core.narrowphase.batch import collide_many, screen_many
from core.mesh import Solid, collide_solid_pairs, collide_solids, measure_solid_pairs
from generators import affine, cloud, random_rotation
from mesh_fixtures import box, coal_distance, transformed, uv_sphere

#: Signed distances (world units) B is placed at from A: deep, touching, within a 0.05 clearance, apart.
GAPS = (-0.3, 0.0, 1e-7, 0.02, 0.3, 2.0, 7.0)


def placed_boxes(seed: int, count: int) -> list[tuple[Solid, Solid]]:
    """``count`` pairs of randomly turned boxes, B moved to one of the ``GAPS`` from A along their normal."""
    rng = np.random.default_rng(seed)
    pairs = []
    for k in range(count):
        a = transformed(box((-0.5, -0.4, -0.3), (0.5, 0.4, 0.3)), random_rotation(rng), rng.uniform(-50, 50, 3))
        b = transformed(box((-0.3, -0.3, -0.6), (0.3, 0.3, 0.6)), random_rotation(rng), a.vertices.mean(axis=0) + 2.0)
        start = collide_solids(Solid(a), Solid(b))
        b = transformed(b, offset=(GAPS[k % len(GAPS)] - start.signed_distance) * start.normal)
        pairs.append((Solid(a, name=f"A{k}"), Solid(b, name=f"B{k}")))
    return pairs


def test_screen_many_columns_are_collide_manys_answers():
    rng = np.random.default_rng(3)
    shapes_a = [core.Polytope(cloud(rng, 30), transform=affine(random_rotation(rng), rng.uniform(-2, 2, 3)))
                for _ in range(60)]
    shapes_b = [core.Polytope(cloud(rng, 30), transform=affine(random_rotation(rng), rng.uniform(-2, 2, 3)))
                for _ in range(60)]
    apart, contacts = screen_many(shapes_a, shapes_b)
    expected = collide_many(shapes_a, shapes_b)
    assert 10 < len(apart.index) < 60  # some pairs apart, some not
    assert all(contacts[k] is None for k in apart.index.tolist())
    assert all(contacts[k] is not None for k in set(range(60)) - set(apart.index.tolist()))
    for row, k in enumerate(apart.index.tolist()):
        single = core.collide(shapes_a[k], shapes_b[k])
        assert (expected[k].status, single.status) == ("separated", "separated")
        assert apart.signed_distance[row] == expected[k].signed_distance
        assert apart.signed_distance[row] == pytest.approx(single.signed_distance, abs=1e-12)
        np.testing.assert_array_equal(apart.point_a[row], expected[k].point_a)
        np.testing.assert_array_equal(apart.point_b[row], expected[k].point_b)
        np.testing.assert_allclose(apart.normal[row], single.normal, atol=1e-9)


def test_measured_pairs_apart_beyond_the_clearance_come_as_columns_with_collide_solids_answers():
    pairs = placed_boxes(5, 70)
    clearance = 0.05
    apart, answers = measure_solid_pairs(pairs, clearance=clearance)
    rows = set(apart.index.tolist())
    singles = [collide_solids(a, b) for a, b in pairs]
    assert rows == {k for k, c in enumerate(singles) if c.status == "separated" and c.signed_distance >= clearance}
    assert all((answers[k] is None) == (k in rows) for k in range(len(pairs)))
    for row, k in enumerate(apart.index.tolist()):
        a, b = pairs[k]
        assert apart.pairs.signed_distance[row] == pytest.approx(coal_distance(a.mesh, b.mesh), abs=1e-9)
        assert apart.pairs.signed_distance[row] == pytest.approx(singles[k].signed_distance, abs=1e-12)
        gap = apart.pairs.point_b[row] - apart.pairs.point_a[row]
        np.testing.assert_allclose(gap, apart.pairs.signed_distance[row] * apart.pairs.normal[row], atol=1e-12)
    assert apart.methods == ["convex"] * len(rows) and apart.has_volume.all()
    for k in set(range(len(pairs))) - rows:  # touching, penetrating, within the clearance: in full
        assert (answers[k].status, answers[k].signed_distance) == pytest.approx(
            (singles[k].status, singles[k].signed_distance), abs=1e-12)
        assert answers[k].overlap_volume == pytest.approx(singles[k].overlap_volume, abs=1e-12)


def test_collide_solid_pairs_still_answers_every_pair_with_an_object():
    pairs = placed_boxes(6, 28)
    contacts = collide_solid_pairs(pairs, clearance=0.05)
    for (a, b), contact in zip(pairs, contacts):
        single = collide_solids(a, b)
        assert (contact.status, contact.method) == (single.status, single.method)
        assert contact.signed_distance == pytest.approx(single.signed_distance, abs=1e-12)
        assert contact.overlap_volume == pytest.approx(single.overlap_volume, abs=1e-12)


def test_hull_pairs_apart_have_no_volume_and_open_objects_are_measured_alone():
    ball = uv_sphere(0.5)
    closed = box()
    open_box = type(closed)(closed.vertices, closed.triangles[2:])  # two triangles short: open, not convex
    pairs = [(Solid(ball, use_hull=True), Solid(transformed(ball, offset=(3.0, 0.0, 0.0)))),
             (Solid(closed), Solid(transformed(open_box, offset=(0.0, 4.0, 0.0)))),
             (Solid(closed), Solid(transformed(closed, offset=(0.0, 0.0, 5.0))))]
    apart, answers = measure_solid_pairs(pairs)
    assert apart.index.tolist() == [0, 2] and answers[0] is None and answers[2] is None
    assert apart.methods == ["hull", "convex"] and apart.has_volume.tolist() == [False, True]
    assert [c.overlap_volume for c in apart.contacts()] == [None, 0.0]
    assert (answers[1].method, answers[1].overlap_volume) == ("mesh", None)
    assert answers[1].distance == pytest.approx(coal_distance(closed, transformed(open_box, offset=(0, 4, 0))),
                                                abs=1e-9)
