"""The faster support paths return exact maxima: the oriented-box index against a full scan, interior
pruning against Qhull's hull vertices, a box's corner list against its own support, cached polytope
bounds against the moved points."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scipy.spatial import ConvexHull, QhullError

import core
from core.support import prune
from core.support.prune import inner_facets, interior_points
from core.support.index import SupportIndex
from generators import affine, cloud, random_rotation, sphere, unit_vectors


def clouds():
    rng = np.random.default_rng(31)
    shell = rng.normal(size=(20_000, 3))
    shell *= (0.5 * rng.uniform(0.98, 1.0, size=(20_000, 1))) / np.linalg.norm(shell, axis=1)[:, None]
    grid = np.stack(np.meshgrid(*[np.linspace(-1, 1, 21)] * 3), axis=-1).reshape(-1, 3)  # many exact ties
    return {
        "sphere surface": sphere(20_000, 0.5) @ random_rotation(rng).T + [3.0, -1.0, 2.0],
        "noisy shell": shell,
        "solid blob": cloud(rng, 20_000),
        "cube grid": grid,
        "flat disc": np.column_stack([rng.uniform(-1, 1, (8000, 2)), np.zeros(8000)]),
        "segment": np.outer(rng.uniform(-1, 1, 5000), [1.0, 2.0, -0.5]),
        "two far blobs": np.vstack([cloud(rng, 4000), cloud(rng, 4000) + 1e4]),
        "duplicates": np.repeat(cloud(rng, 500), 10, axis=0),
    }


CLOUDS = clouds()


def directions(rng: np.random.Generator) -> np.ndarray:
    axes = np.vstack([np.eye(3), -np.eye(3), [[1.0, 1.0, 0.0], [0.0, -1.0, 1.0]]])
    return np.vstack([unit_vectors(rng, 150), axes, 1e-200 * unit_vectors(rng, 2), 1e200 * unit_vectors(rng, 2)])


@pytest.mark.parametrize("name", CLOUDS)
@pytest.mark.parametrize("cluster_size", [16, 128])
def test_index_finds_the_exact_maximum(name, cluster_size):
    points = CLOUDS[name]
    index = SupportIndex(points, cluster_size)
    assert sorted(map(tuple, index.points)) == sorted(map(tuple, points))
    for d in directions(np.random.default_rng(len(points))):
        values = index.points @ d
        assert values[index.argmax(d)] == values.max()


def test_box_corners_give_the_box_support():
    rng = np.random.default_rng(2)
    box = core.Box([0.3, 0.0, 0.2], affine(random_rotation(rng), [1.0, 2.0, 3.0]))
    corners = box.vertices()
    axis_aligned = [(1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, 0.0), (-0.0, 1.0, -0.0), (1.0, 1.0, 0.0)]
    for d in list(map(tuple, unit_vectors(rng, 50))) + axis_aligned:
        first_max = corners[int(np.argmax(corners @ np.array(d)))]
        assert tuple(first_max) == box._local_support(d)


@pytest.mark.parametrize("index", [False, True])
def test_translated_polytope_bounds_are_the_moved_points_box(index, monkeypatch):
    monkeypatch.setattr(core.shapes.convex, "INDEX_MIN_POINTS", 1000)
    points = cloud(np.random.default_rng(4), 3000)
    shape = core.Polytope(points, index=index)
    for matrix in (affine(np.eye(3), [5.0, -2.0, 1e6]), affine(random_rotation(np.random.default_rng(5)), [1, 2, 3])):
        moved = points @ matrix[:3, :3].T + matrix[:3, 3]
        low, high = shape.transformed(matrix).bounds()
        np.testing.assert_allclose(low, moved.min(axis=0), rtol=1e-15, atol=1e-15 * np.abs(moved).max())
        np.testing.assert_allclose(high, moved.max(axis=0), rtol=1e-15, atol=1e-15 * np.abs(moved).max())


def test_similarity_scale():
    rotation = random_rotation(np.random.default_rng(6))
    scales = core.shapes.convex.similarity_scale(np.array([2.5 * rotation, -0.5 * np.eye(3), rotation]))
    np.testing.assert_allclose(scales, [2.5, 0.5, 1.0], rtol=1e-15)
    with pytest.raises(ValueError, match="similarity"):
        core.shapes.convex.similarity_scale(np.diag([1.0, 1.0, 1.1]))


PRUNE_CLOUDS = {name: CLOUDS[name] for name in ("noisy shell", "solid blob", "cube grid", "flat disc", "segment",
                                                 "duplicates")}
PRUNE_CLOUDS["few"] = cloud(np.random.default_rng(8), 5)
PRUNE_CLOUDS["thin slab"] = cloud(np.random.default_rng(9), 3000) * [1.0, 1.0, 1e-7]


@pytest.mark.parametrize("name", PRUNE_CLOUDS)
def test_pruning_keeps_every_hull_vertex(name):
    """Against Qhull: no vertex of the hull is ever called interior."""
    points = PRUNE_CLOUDS[name]
    inside = interior_points(points)
    try:
        vertices = ConvexHull(points).vertices
    except QhullError:  # flat or thinner: the test must certify nothing
        assert not inside.any()
        return
    assert not inside[vertices].any()
    if name == "solid blob":
        assert inside.mean() > 0.5  # and solid clouds lose most of their points


@pytest.mark.parametrize("name", ["solid blob", "cube grid", "noisy shell"])
def test_pruned_polytope_has_the_same_supports(name):
    points = CLOUDS[name]
    pruned, full = core.Polytope(points), core.Polytope(points, index=False)
    assert len(full.points) == len(points)
    for d in directions(np.random.default_rng(3)):
        if not np.any(d):
            continue
        assert pruned.support(tuple(d)) == tuple(points[int(np.argmax(points @ d))])
    other = core.Box([0.2, 0.3, 0.1], affine(random_rotation(np.random.default_rng(1)), [0.9, 0.2, 0.1]))
    a, b = core.collide(pruned, other), core.collide(full, other)
    assert a.signed_distance == b.signed_distance and np.array_equal(a.normal, b.normal)


def test_box_bounds_are_its_axis_supports():
    rng = np.random.default_rng(12)
    for matrix in (None, affine(random_rotation(rng) @ np.diag([2.0, -0.5, 1.0]), [1e3, -2.0, 0.5])):
        box = core.Box([0.3, 0.1, 0.7], matrix)
        low, high = box.bounds()
        for k, axis in enumerate(np.eye(3)):
            assert high[k] == pytest.approx(box.support(tuple(axis))[k], rel=1e-15, abs=1e-12)
            assert low[k] == pytest.approx(box.support(tuple(-axis))[k], rel=1e-15, abs=1e-12)


def _inner_facets_as_written_first(support: np.ndarray) -> np.ndarray:
    """``prune.inner_facets`` as first written (``support @ normal.T``, the rows of every triple gathered anew)."""
    triples = np.array(list(itertools.combinations(range(len(support)), 3)), dtype=np.int64).reshape(-1, 3)
    a, b, c = (support[triples[:, k]] for k in range(3))
    normal = np.cross(b - a, c - a)
    offset = np.einsum("fj,fj->f", normal, a)
    heights = support @ normal.T - offset
    slack = 1e-12 * np.abs(support).max() * np.linalg.norm(normal, axis=1)
    facet = ((heights <= slack).all(axis=0) & (offset > 0.0)) | ((heights >= -slack).all(axis=0) & (offset < 0.0))
    triangles = np.stack([a, b, c], axis=1)[facet]
    flip = offset[facet] < 0.0
    triangles[flip] = triangles[flip][:, [0, 2, 1]]
    return triangles


@pytest.mark.parametrize("name", PRUNE_CLOUDS)
def test_inner_facets_are_those_first_written(name):
    """The same triangles bit for bit, in the same order, as the first way of writing them (ties and flat clouds
    included), for the clouds' supports along a cube's 26 directions and along 50 directions."""
    points = PRUNE_CLOUDS[name]
    cube = np.array([d for d in itertools.product((-1.0, 0.0, 1.0), repeat=3) if any(d)])
    for directions in (cube, np.vstack([cube, unit_vectors(np.random.default_rng(16), 24)])):
        support = np.unique(points[np.argmax(points @ directions.T, axis=0)], axis=0)
        support = support - support.mean(axis=0)
        assert np.array_equal(inner_facets(support), _inner_facets_as_written_first(support))
    rng = np.random.default_rng(17)
    for count in (4, 5, 12, 26, 37, 50):
        support = rng.normal(size=(count, 3)) * 10.0 ** rng.uniform(-5, 5)
        support[count // 2] = 0.5 * (support[0] + support[1])  # three in a line
        assert np.array_equal(inner_facets(support), _inner_facets_as_written_first(support))


def _uv_sphere(segments: int, rings: int) -> np.ndarray:
    """The vertices of a UV sphere of radius 0.5 (``segments * (rings - 1) + 2``)."""
    polar = np.pi * np.arange(1, rings) / rings
    turn = 2.0 * np.pi * np.arange(segments) / segments
    ring = np.column_stack([np.outer(np.sin(polar), np.cos(turn)).ravel(),
                            np.outer(np.sin(polar), np.sin(turn)).ravel(), np.repeat(np.cos(polar), segments)])
    return 0.5 * np.vstack([[0.0, 0.0, 1.0], ring, [0.0, 0.0, -1.0]])


def _shortcut_clouds() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(41)
    jittered = _uv_sphere(40, 26) * rng.uniform(0.97, 1.03, (1002, 3))  # a sculpted ball's vertices: not convex
    shell = CLOUDS["noisy shell"][:6000]
    clouds = {**PRUNE_CLOUDS, "sphere surface": CLOUDS["sphere surface"], "jittered sphere": jittered,
              "jittered sphere far away": jittered * [1.0, 0.8, 0.9] + [3e3, -2e3, 1e3],
              "turned jittered sphere": jittered @ random_rotation(rng).T}
    for share in (0.1, 0.2, 0.25, 0.3, 0.6):  # a shell around a solid core: about that share inside
        core_points = cloud(rng, int(share * len(shell) / (1.0 - share)))
        clouds[f"shell around a core of {share:.0%}"] = rng.permutation(np.vstack([shell, 0.8 * core_points]))
    return clouds


SHORTCUT_CLOUDS = _shortcut_clouds()
SURFACE_LIKE = ["noisy shell", "sphere surface", "jittered sphere", "jittered sphere far away",
                "turned jittered sphere"]


@pytest.mark.parametrize("name", SHORTCUT_CLOUDS)
def test_points_found_beyond_the_supports_are_outside_the_fan(name):
    """No sample point the cheap look finds beyond the supports is inside the fan test of the same supports: the
    look only ever finds points that test would call outside."""
    points = SHORTCUT_CLOUDS[name]
    sample = points[:: max(1, len(points) // prune._SAMPLE)]
    beyond = prune._beyond_supports(sample)
    fan = prune._fan_test(sample, sample, prune._CUBE)
    if fan is not None:
        inside = fan(sample)
        assert not (beyond & inside).any()
        if name in SURFACE_LIKE:
            assert beyond.mean() > 1.0 - prune.WORTH_TESTING  # (the look decides these clouds)
        elif "core" in name or name == "solid blob":
            assert inside.any() and beyond.any()  # (both found: the check above checks something)


@pytest.mark.parametrize("name", SHORTCUT_CLOUDS)
def test_pruning_is_that_without_the_cheap_look(name, monkeypatch):
    """The same points pruned as with the fan test alone, the cheap look taken or not."""
    points = SHORTCUT_CLOUDS[name]
    looked = interior_points(points)
    monkeypatch.setattr(prune, "_beyond_supports", lambda sample: np.zeros(len(sample), dtype=bool))
    assert np.array_equal(looked, interior_points(points))
