"""``collide_many`` gives, pair by pair, the answers of ``collide`` (and of the exact reference)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import core
import core.narrowphase.batch
from checks import NORMAL_TOLERANCE, VALUE_TOLERANCE, angle, assert_conventions, assert_matches_reference
from core.narrowphase.batch import ShapeSet, collide_many
from generators import affine, box, cloud, random_rotation, sphere, unit_vectors
from reference import reference_contact


def random_body(rng: np.random.Generator, kind: str):
    """A prepared shape of ``kind`` somewhere near the origin, and its placement matrix."""
    matrix = affine(random_rotation(rng), rng.uniform(-0.3, 0.3, 3))
    if kind == "box":
        return core.Box(rng.uniform(0.05, 0.6, 3), matrix)
    if kind == "sphere":
        return core.Sphere(rng.uniform(-0.3, 0.3, 3), rng.uniform(0.05, 0.5))
    points = sphere(int(rng.integers(20, 90)), 0.4) * rng.uniform(0.3, 1.0, 3) if kind == "round" else cloud(
        rng, int(rng.integers(4, 60)))
    return core.Polytope(points, transform=matrix)


KINDS = ("box", "sphere", "round", "cloud")


def random_pairs(seed: int, count: int, gaps) -> tuple[list, list]:
    """``count`` pairs of random kinds, B moved so that the pair's signed distance is about one of
    ``gaps`` (relative to size); a gap of 0 puts B exactly in contact along the pair's normal."""
    rng = np.random.default_rng(seed)
    shapes_a, shapes_b = [], []
    for k in range(count):
        a = random_body(rng, KINDS[k % 4])
        b = random_body(rng, KINDS[(k // 4) % 4])
        offset = rng.uniform(-100, 100, 3)
        a = a.transformed(affine(np.eye(3), offset))
        b = b.transformed(affine(np.eye(3), offset + 0.6 * unit_vectors(rng, 1)[0]))
        gap = gaps[k % len(gaps)]
        start = core.collide(a, b)
        size = max(np.ptp(np.vstack(a.bounds()), axis=0).max(), np.ptp(np.vstack(b.bounds()), axis=0).max())
        shift = (gap * size - start.signed_distance) * start.normal
        shapes_a.append(a)
        shapes_b.append(b.transformed(affine(np.eye(3), shift)))
    return shapes_a, shapes_b


def pair_size(a, b) -> float:
    low = np.minimum(a.bounds()[0], b.bounds()[0])
    high = np.maximum(a.bounds()[1], b.bounds()[1])
    return float((high - low).max())


def assert_same(batch, single, a, b) -> None:
    """Same status, value, normal and witness offset as ``collide``; witness points on the shapes'
    supporting planes (closest points need not be unique, e.g. for parallel faces)."""
    size = pair_size(a, b)
    tol = VALUE_TOLERANCE * size
    assert_conventions(batch, size)
    assert batch.status == single.status
    assert batch.solver_status == single.solver_status
    assert abs(batch.signed_distance - single.signed_distance) <= tol
    assert angle(batch.normal, single.normal) <= NORMAL_TOLERANCE
    np.testing.assert_allclose(batch.tangents, single.tangents, rtol=0, atol=10 * NORMAL_TOLERANCE)
    np.testing.assert_allclose(batch.point_a - batch.point_b, single.point_a - single.point_b, rtol=0, atol=tol)
    assert batch.bounds[0] <= single.signed_distance + tol and single.signed_distance - tol <= batch.bounds[1]
    if abs(single.signed_distance) > 1e-6 * size:  # nearer, rounding leaves the normal ~1e-16 size/|sd| rad
        reach_a = np.dot(a.support(tuple(batch.normal)), batch.normal) + a.margin
        reach_b = np.dot(b.support(tuple(-batch.normal)), -batch.normal) + b.margin
        assert abs(np.dot(batch.point_a, batch.normal) - reach_a) <= tol
        assert abs(np.dot(batch.point_b, -batch.normal) - reach_b) <= tol


GAPS = (0.4, 0.05, 1e-4, 1e-7, 3e-12, 0.0, -3e-12, -1e-7, -1e-4, -0.05, -0.3)


@pytest.mark.parametrize("seed", range(3))
def test_equals_collide_pair_by_pair(seed):
    shapes_a, shapes_b = random_pairs(seed, 120, GAPS)
    contacts = collide_many(shapes_a, shapes_b)
    statuses = set()
    for contact, a, b in zip(contacts, shapes_a, shapes_b):
        assert_same(contact, core.collide(a, b), a, b)
        statuses.add(contact.status)
    assert statuses == {"separated", "touching", "penetrating"}


def test_lockstep_answers_most_separated_pairs():
    """Pairs clearly apart are answered by the lockstep GJK: the batch never calls ``collide``."""
    shapes_a, shapes_b = random_pairs(7, 40, (0.3, 0.02))
    calls = []
    original = core.narrowphase.batch.collide
    core.narrowphase.batch.collide = lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs)
    try:
        contacts = collide_many(shapes_a, shapes_b)
    finally:
        core.narrowphase.batch.collide = original
    assert not calls
    assert all(c.status == "separated" for c in contacts)


@pytest.mark.parametrize("seed", range(2))
def test_matches_exact_reference(seed):
    """Boxes and clouds as raw points against the exact hull reference."""
    rng = np.random.default_rng(50 + seed)
    points_a, points_b = [], []
    for k in range(12):
        a = box(rng.uniform(0.1, 0.5, 3)) @ random_rotation(rng).T if k % 2 else cloud(rng, 30)
        b = cloud(rng, 25) + unit_vectors(rng, 1)[0] * rng.uniform(0.2, 1.2)
        points_a.append(a)
        points_b.append(b)
    for contact, a, b in zip(collide_many(points_a, points_b), points_a, points_b):
        assert_matches_reference(contact, reference_contact(a, b), a, b)


def test_matrices_equal_transformed_shapes():
    rng = np.random.default_rng(11)
    shapes_a, shapes_b = random_pairs(11, 40, (0.2, 0.01, -0.1))
    similarity = [affine(random_rotation(rng) * rng.uniform(0.5, 2.0), rng.uniform(-1, 1, 3)) for _ in range(40)]
    general = [affine(random_rotation(rng) @ np.diag(rng.uniform(0.5, 2.0, 3)), rng.uniform(-1, 1, 3))
               if not isinstance(b, core.Sphere) else similarity[k] for k, b in enumerate(shapes_b)]
    contacts = collide_many(shapes_a, shapes_b, matrices_a=np.array(similarity), matrices_b=np.array(general))
    for contact, a, b, ma, mb in zip(contacts, shapes_a, shapes_b, similarity, general):
        moved_a, moved_b = a.transformed(ma), b.transformed(mb)
        assert_same(contact, core.collide(moved_a, moved_b), moved_a, moved_b)


def test_shape_set_is_reused_across_moves():
    shapes_a, shapes_b = random_pairs(13, 30, (0.2, 0.01, -0.1, 0.0))
    set_a, set_b = ShapeSet(shapes_a), ShapeSet(shapes_b)
    rng = np.random.default_rng(13)
    for _ in range(3):
        moves = np.array([affine(random_rotation(rng), rng.uniform(-0.05, 0.05, 3)) for _ in shapes_b])
        contacts = collide_many(set_a, set_b, matrices_b=moves)
        for contact, a, b, m in zip(contacts, shapes_a, shapes_b, moves):
            assert_same(contact, core.collide(a, b.transformed(m)), a, b.transformed(m))


def test_taken_rows_pair_prepared_shapes_in_any_combination(monkeypatch):
    monkeypatch.setattr(core.narrowphase.batch, "MAX_PADDED_VERTICES", 30)  # some rows too large to pad, too
    shapes_a, shapes_b = random_pairs(17, 12, (0.15, -0.05, 0.0))
    prepared = ShapeSet([*shapes_a, *shapes_b])
    rng = np.random.default_rng(17)
    rows_a, rows_b = rng.integers(0, 24, 40), rng.integers(0, 24, 40)
    moves = np.array([affine(random_rotation(rng), rng.uniform(-0.5, 0.5, 3)) for _ in rows_b])
    contacts = collide_many(prepared.take(rows_a), prepared.take(rows_b), matrices_b=moves)
    for contact, row_a, row_b, m in zip(contacts, rows_a, rows_b, moves):
        a, b = prepared.shapes[row_a], prepared.shapes[row_b].transformed(m)
        assert_same(contact, core.collide(a, b), a, b)


def test_large_shapes_go_through_collide(monkeypatch):
    monkeypatch.setattr(core.narrowphase.batch, "MAX_PADDED_VERTICES", 30)
    shapes_a, shapes_b = random_pairs(3, 24, (0.1, -0.1, 0.0))
    matrices = np.array([affine(random_rotation(np.random.default_rng(k)), [0.1, 0.2, 0.3]) for k in range(24)])
    contacts = collide_many(shapes_a, shapes_b, matrices_a=matrices)
    for contact, a, b, m in zip(contacts, shapes_a, shapes_b, matrices):
        assert_same(contact, core.collide(a.transformed(m), b), a.transformed(m), b)


def test_keywords_are_passed_on():
    shapes_a, shapes_b = random_pairs(5, 16, (0.01, 0.2, -0.05))
    options = {"tolerance": 1e-6, "touch_tolerance": 0.02, "max_iterations": 3}
    for contact, a, b in zip(collide_many(shapes_a, shapes_b, **options), shapes_a, shapes_b):
        single = core.collide(a, b, **options)
        assert contact.status == single.status and contact.tolerance == single.tolerance
        assert contact.solver_status == single.solver_status
        assert contact.iterations <= 2 * options["max_iterations"]
        assert contact.bounds[0] <= contact.signed_distance <= contact.bounds[1]


def test_contacts_are_complete_frozen_contacts():
    shapes_a, shapes_b = random_pairs(9, 8, (0.2,))
    for contact in collide_many(shapes_a, shapes_b):
        assert isinstance(contact, core.Contact)
        assert set(vars(contact)) == {field.name for field in dataclasses.fields(core.Contact)}
        with pytest.raises(dataclasses.FrozenInstanceError):
            contact.signed_distance = 0.0


def test_bad_input():
    a, b = [core.Box([0.1, 0.1, 0.1])], [core.Sphere([1, 0, 0], 0.2)]
    assert collide_many([], []) == []
    with pytest.raises(ValueError, match="same length"):
        collide_many(a, b + b)
    with pytest.raises(ValueError, match="matrices_a"):
        collide_many(a, b, matrices_a=np.eye(4))
    with pytest.raises(ValueError, match="matrices_b"):
        collide_many(a, b, matrices_b=np.full((1, 4, 4), np.nan))
    with pytest.raises(ValueError, match="similarity"):
        collide_many(a, b, matrices_b=np.diag([1.0, 2.0, 1.0, 1.0])[None])
    with pytest.raises(ValueError, match="shapes_b"):
        collide_many(a, [np.zeros((0, 3))])
    with pytest.raises(ValueError, match="tolerance"):
        collide_many(a, b, tolerance=-1.0)


def degenerate_body(rng: np.random.Generator, kind: str):
    matrix = affine(random_rotation(rng), rng.uniform(-0.2, 0.2, 3))
    if kind == "square":
        return core.Polytope(box([0.3, 0.2, 0.0]), transform=matrix)
    if kind == "segment":
        return core.Polytope(np.outer([-1.0, 0.3, 1.0], rng.normal(size=3) * 0.3), transform=matrix)
    return core.Polytope(rng.normal(size=(1, 3)) * 0.1, transform=matrix)  # a point


@pytest.mark.parametrize("seed", range(2))
def test_flat_linear_and_point_shapes(seed):
    """Flat, linear and single-point polytopes (and against boxes) give the answers of ``collide``."""
    rng = np.random.default_rng(70 + seed)
    kinds = ("square", "segment", "point", "box")
    shapes_a, shapes_b = [], []
    for k in range(48):
        a = degenerate_body(rng, kinds[k % 4]) if k % 4 != 3 else random_body(rng, "box")
        b = degenerate_body(rng, kinds[(k // 4) % 3])
        shapes_a.append(a)
        shapes_b.append(b.transformed(affine(np.eye(3), unit_vectors(rng, 1)[0] * rng.uniform(0.0, 0.8))))
    for contact, a, b in zip(collide_many(shapes_a, shapes_b), shapes_a, shapes_b):
        assert_same(contact, core.collide(a, b), a, b)
