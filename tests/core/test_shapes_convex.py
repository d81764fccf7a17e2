"""Exact shapes (Sphere, Box) against analytic answers; transformed polytopes against moved points."""

from __future__ import annotations

import numpy as np
import pytest

import core
from checks import NORMAL_TOLERANCE, VALUE_TOLERANCE, angle, assert_conventions, assert_matches_reference
from generators import affine, box, cloud, random_rotation, rotation_about, sphere
from reference import ExactHull, reference_contact

TOL = VALUE_TOLERANCE * 4  # the pairs below are at most about 4 across


@pytest.mark.parametrize("gap", [-0.7, -1e-6, 0.0, 1e-6, 2.5])
def test_sphere_pair_is_exact(gap):
    direction = np.array([2.0, -1.0, 0.5]) / np.linalg.norm([2.0, -1.0, 0.5])
    c1, r1, r2 = np.array([0.3, 0.2, -0.1]), 0.8, 0.45
    c2 = c1 + (r1 + r2 + gap) * direction
    contact = core.collide(core.Sphere(c1, r1), core.Sphere(c2, r2))
    assert_conventions(contact, 4.0)
    assert contact.signed_distance == pytest.approx(gap, abs=TOL)
    assert angle(contact.normal, direction) <= 1e-12
    np.testing.assert_allclose(contact.point_a, c1 + r1 * direction, atol=TOL)
    np.testing.assert_allclose(contact.point_b, c2 - r2 * direction, atol=TOL)
    assert contact.status == ("touching" if gap == 0.0 else "penetrating" if gap < 0 else "separated")


def box_sphere_answer(half, rotation, offset, centre, radius):
    """Analytic signed distance and normal (box toward sphere) of a rotated box and a sphere."""
    q = rotation.T @ (centre - offset)
    nearest = np.clip(q, -half, half)
    if np.any(q != nearest):
        gap = q - nearest
        return np.linalg.norm(gap) - radius, rotation @ (gap / np.linalg.norm(gap))
    axis = int(np.argmin(half - np.abs(q)))
    return -(half[axis] - abs(q[axis]) + radius), rotation @ (np.sign(q[axis]) * np.eye(3)[axis])


@pytest.mark.parametrize("local_centre", [(1.2, 0.1, 0.2), (0.9, 0.8, 0.2), (0.9, 0.7, 1.1),
                                          (0.3, 0.1, -0.2), (0.0, 0.05, 0.7), (0.55, 0.0, 0.0)])
def test_box_against_sphere_is_exact(local_centre):
    half, radius = np.array([0.6, 0.5, 0.4]), 0.3
    rotation = random_rotation(np.random.default_rng(4))
    offset = np.array([10.0, -3.0, 2.0])
    centre = rotation @ np.array(local_centre) + offset
    contact = core.collide(core.Box(half, affine(rotation, offset)), core.Sphere(centre, radius))
    expected_sd, expected_normal = box_sphere_answer(half, rotation, offset, centre, radius)
    assert_conventions(contact, 4.0)
    assert contact.signed_distance == pytest.approx(expected_sd, abs=TOL)
    assert angle(contact.normal, expected_normal) <= NORMAL_TOLERANCE


@pytest.mark.parametrize("seed", range(4))
def test_box_equals_its_corners(seed):
    rng = np.random.default_rng(seed)
    half_a, half_b = rng.uniform(0.1, 0.6, 3), rng.uniform(0.1, 0.6, 3)
    ma = affine(random_rotation(rng), rng.normal(size=3) * 0.1)
    mb = affine(random_rotation(rng), rng.normal(size=3) * 0.6)
    corners_a = box(half_a) @ ma[:3, :3].T + ma[:3, 3]
    corners_b = box(half_b) @ mb[:3, :3].T + mb[:3, 3]
    contact = core.collide(core.Box(half_a, ma), core.Box(half_b, mb))
    assert_matches_reference(contact, reference_contact(corners_a, corners_b), corners_a, corners_b)


def test_sphere_against_cloud_is_reference_minus_radius():
    points = cloud(np.random.default_rng(8), 50)
    centre, radius = np.array([0.9, 0.1, 0.0]), 0.35
    contact = core.collide(points, core.Sphere(centre, radius))
    ref = reference_contact(points, centre[None])
    assert contact.signed_distance == pytest.approx(ref.signed_distance - radius, abs=TOL)
    assert angle(contact.normal, ref.normal) <= NORMAL_TOLERANCE


MATRICES = {
    "rotation+translation": affine(rotation_about([1, 2, 3], 0.7), [0.5, -0.2, 0.1]),
    "non-uniform scale": affine(rotation_about([0, 1, 1], 0.3) @ np.diag([2.0, 0.5, 1.3]), [0.2, 0.0, 0.3]),
    "mirror": affine(np.diag([-1.0, 1.0, 1.0]), [0.1, 0.1, 0.0]),
    "negative non-uniform": affine(np.diag([-2.0, -0.5, 3.0]) @ rotation_about([1, 0, 0], 1.1), [0.0, 0.4, 0.0]),
    "shear": affine(np.array([[1.0, 0.4, 0.0], [0.0, 1.0, 0.2], [0.0, 0.0, 0.8]]), [0.3, 0.0, 0.0]),
}


def moved(points: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    return points @ matrix[:3, :3].T + matrix[:3, 3]


@pytest.fixture
def index_from_1000_points(monkeypatch):
    """Let test-sized clouds use the spatial index (the production threshold is 150k points), on all
    their points (no pruning of interior ones first)."""
    monkeypatch.setattr(core.shapes.convex, "INDEX_MIN_POINTS", 1000)
    monkeypatch.setattr(core.shapes.convex, "PRUNE_MIN_POINTS", 10**12)


@pytest.mark.parametrize("name", MATRICES)
@pytest.mark.parametrize("count", [30, 5000])  # 5000 points use the spatial index
def test_transformed_polytope_equals_transformed_points(name, count, index_from_1000_points):
    rng = np.random.default_rng(count)
    matrix = MATRICES[name]
    local = sphere(count, 0.5) * [1.0, 0.7, 0.4] + rng.normal(scale=1e-3, size=(count, 3))
    other = cloud(rng, 40) + [0.9, 0.3, 0.2]
    expected = core.collide(moved(local, matrix), other)
    for shape in (core.Polytope(local).transformed(matrix), core.Polytope(local, transform=matrix)):
        assert (shape._index is not None) == (count >= 1000)
        contact = core.collide(shape, other)
        assert contact.signed_distance == pytest.approx(expected.signed_distance, abs=TOL)
        assert angle(contact.normal, expected.normal) <= NORMAL_TOLERANCE
        np.testing.assert_allclose(contact.point_a, expected.point_a, atol=TOL)
    ref = reference_contact(moved(local, matrix), other)
    assert expected.signed_distance == pytest.approx(ref.signed_distance, abs=TOL)


def test_turned_polytope_bounds_are_its_points_box_after_every_move():
    """A turned shape dragged about (its linear part kept, the offset changing, as in a live update) and
    turned to other maps in between: its box is always the box of its points where they are."""
    rng = np.random.default_rng(8)
    local = sphere(3000, 0.5) * [1.0, 0.7, 0.4]
    polytope = core.Polytope(local)
    turns = [random_rotation(rng) * rng.uniform(0.5, 2.0) for _ in range(7)]
    for step in range(60):
        linear = turns[step % 3] if step < 40 else turns[3 + step % 4]
        matrix = affine(linear, rng.normal(size=3) * 10.0)
        low, high = polytope.transformed(matrix).bounds()
        world = polytope.points @ linear.T
        assert (low == world.min(axis=0) + matrix[:3, 3]).all() and (high == world.max(axis=0) + matrix[:3, 3]).all()
        np.testing.assert_allclose(low, moved(local, matrix).min(axis=0), atol=1e-12)


def test_transformed_composes():
    first, second = MATRICES["negative non-uniform"], MATRICES["rotation+translation"]
    local = cloud(np.random.default_rng(2), 60)
    other = box([0.3, 0.3, 0.3]) + [1.0, 0.5, 0.0]
    chained = core.collide(core.Polytope(local).transformed(first).transformed(second), other)
    direct = core.collide(moved(local, second @ first), other)
    assert chained.signed_distance == pytest.approx(direct.signed_distance, abs=TOL)
    assert angle(chained.normal, direct.normal) <= NORMAL_TOLERANCE


def test_box_transformed_with_negative_scale_equals_its_corners():
    matrix = MATRICES["negative non-uniform"]
    half = np.array([0.2, 0.3, 0.1])
    other = cloud(np.random.default_rng(6), 30) + [0.5, 0.8, 0.1]
    contact = core.collide(core.Box(half).transformed(matrix), other)
    corners = moved(box(half), matrix)
    assert_matches_reference(contact, reference_contact(corners, other), corners, other)


def test_sphere_transformed_by_similarity():
    matrix = affine(2.0 * rotation_about([0, 0, 1], 0.5), [1.0, 2.0, 3.0])
    ball = core.Sphere([0.5, 0.0, 0.0], 0.25).transformed(matrix)
    np.testing.assert_allclose(ball.center, matrix[:3, :3] @ [0.5, 0, 0] + matrix[:3, 3], atol=1e-15)
    assert ball.radius == pytest.approx(0.5, abs=1e-15)
    with pytest.raises(ValueError, match="matrix"):
        core.Sphere([0, 0, 0], 1.0).transformed(np.diag([1.0, 2.0, 1.0, 1.0]))


def large_clouds() -> dict[str, np.ndarray]:
    """Big clouds (spatial index) with the ties and degeneracies that trip hill climbing and pruning."""
    rng = np.random.default_rng(31)
    g = np.linspace(-0.5, 0.5, 41)
    x, y = np.meshgrid(g, g)
    face = np.column_stack([x.ravel(), y.ravel(), np.full(x.size, 0.5)])
    turns = [rotation_about([1, 0, 0], k * np.pi / 2) for k in range(4)]
    turns += [rotation_about([0, 1, 0], s * np.pi / 2) for s in (1, -1)]
    return {
        "gaussian": rng.normal(size=(20000, 3)),
        "sphere": sphere(8000),
        "cube surface grid": np.vstack([face @ t.T for t in turns]),
        "flat disk": np.column_stack([rng.uniform(-1, 1, (8000, 2)), np.zeros(8000)]) @ random_rotation(rng).T,
        "segment": np.outer(rng.uniform(-1, 1, 6000), [1.0, 2.0, 3.0]),
        "five points repeated": np.repeat(rng.normal(size=(5, 3)), 1000, axis=0),
    }


LARGE_CLOUDS = large_clouds()


@pytest.mark.parametrize("name", list(LARGE_CLOUDS))
def test_prepared_support_is_exact(name, index_from_1000_points):
    """Support points of a prepared (indexed) polytope, moved or not, attain the exact maximum."""
    points = LARGE_CLOUDS[name]
    rng = np.random.default_rng(3)
    directions = np.vstack([rng.normal(size=(300, 3)), np.eye(3), -np.eye(3), [[1, 1, 0], [1, 1, 1]]])
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    matrix = MATRICES["negative non-uniform"]
    for shape, world in ((core.Polytope(points), points),
                         (core.Polytope(points).transformed(matrix), moved(points, matrix))):
        assert shape._index is not None
        scale = np.abs(world).max()
        found = np.array([shape.support(tuple(d)) for d in directions])
        assert np.all(np.einsum("ij,ij->i", found, directions) >= (world @ directions.T).max(axis=0) - 1e-14 * scale)
        hull = ExactHull(world)
        assert all(hull.distance(p) <= 1e-12 * scale for p in found[:20])


def seeded_clouds(seed: int) -> list[np.ndarray]:
    """Small clouds near the origin, far from it (moved to their centre), flat, single points, float32 coordinates,
    and one large enough to be pruned (built alone)."""
    rng = np.random.default_rng(seed)
    clouds = []
    for k in range(60):
        points = rng.normal(size=(int(rng.integers(1, 200)), 3)) * rng.uniform(1e-3, 10.0)
        if k % 3 == 0:
            points += rng.normal(size=3) * 1e3  # farther from the origin than wide: centred
        if k % 7 == 0:
            points[:, 2] = 0.0  # flat
        if k % 5 == 0:
            points = points.astype(np.float32).astype(np.float64)
        clouds.append(points)
    clouds.append(rng.normal(size=(core.shapes.convex.PRUNE_MIN_POINTS + 10, 3)))
    return clouds


@pytest.mark.parametrize("seed", range(3))
def test_polytopes_of_many_clouds_are_each_clouds_own(seed):
    clouds = seeded_clouds(seed)
    directions = np.random.default_rng(seed).normal(size=(20, 3))
    made = core.Polytope.of_clouds(clouds)
    assert sum(np.abs(p.affine[1]).max() > 0.0 for p in made) >= 15  # many were moved to their centre
    for polytope, cloud in zip(made, clouds):
        alone = core.Polytope(cloud)
        assert polytope.vertices().tobytes() == alone.vertices().tobytes()
        assert all(np.array_equal(mine, theirs) for mine, theirs in zip(polytope.affine, alone.affine))
        assert polytope.affine[1].tobytes() == alone.affine[1].tobytes()
        assert polytope.box() == alone.box()  # (the same numbers; a zero's sign may differ)
        assert np.array_equal(polytope.bounds(), alone.bounds())
        assert polytope.support_table_pending == alone.support_table_pending
        for d in directions.tolist():
            assert polytope.support(tuple(d)) == alone.support(tuple(d))
    assert core.Polytope.of_clouds([]) == []


@pytest.mark.parametrize("spoil", [np.nan, np.inf, 1e120])
def test_a_bad_cloud_among_many_raises_polytopes_error(spoil):
    clouds = seeded_clouds(4)[:5]
    clouds[3] = clouds[3].copy()
    clouds[3][0, 1] = spoil
    with pytest.raises(ValueError) as raised:
        core.Polytope.of_clouds(clouds)
    with pytest.raises(ValueError) as alone:
        core.Polytope(clouds[3])
    assert str(raised.value) == str(alone.value)
    with pytest.raises(ValueError, match="empty"):
        core.Polytope.of_clouds([clouds[0], np.empty((0, 3))])


def test_written_out_support_is_the_shapes_steps():
    """``Polytope.support``'s one-call way (an untransformed small cloud, no cap kept) gives the point the general
    steps give (``Shape.support``: local support, placed), to the bit, with exact ties (a grid) and -0.0; clouds with
    a kept cap, a transform or a table take the general steps."""
    rng = np.random.default_rng(3)
    grid = np.stack(np.meshgrid(*[np.linspace(-1.0, 1.0, 5)] * 3), axis=-1).reshape(-1, 3)
    directions = np.vstack([rng.normal(size=(200, 3)), np.eye(3), -np.eye(3), [[0.0, -0.0, 1.0], [1.0, 1.0, 0.0]]])
    capped = core.Polytope(sphere(3000, 0.5))
    capped.support_candidates(np.array([0.0, 0.0, 1.0]), 0.01)
    shapes = [core.Polytope(cloud(rng, 40)), core.Polytope(grid).translated((-0.0, 0.25, 1e3)),
              core.Polytope(grid, transform=affine(random_rotation(rng), (1.0, 2.0, 3.0))), capped]
    for shape in shapes:
        for d in map(tuple, directions.tolist()):
            point = shape.support(d)
            assert np.array_equal(np.array(point), np.array(core.shapes.convex.Shape.support(shape, d)))
            assert all(np.signbit(point) == np.signbit(core.shapes.convex.Shape.support(shape, d)))
