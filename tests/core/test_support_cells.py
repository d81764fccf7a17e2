"""The cached certified local subproblems of the support index (``core.support.cells``) return exact
maxima: against a full scan over many directions (first asked and asked again), with ties (cube
faces, duplicates), degenerate clouds (flat, collinear) and failing certificates; prepared shapes
moved around collide exactly as unindexed ones and as the exact reference."""

from __future__ import annotations

import numpy as np
import pytest

import core
import core.support.cells as cells
from checks import assert_matches_reference
from core.support.index import SupportIndex
from generators import affine, cloud, random_rotation, rotation_about, sphere, unit_vectors
from reference import reference_contact


def cube_surface(steps: int) -> np.ndarray:
    g = np.linspace(-0.5, 0.5, steps)
    x, y = np.meshgrid(g, g)
    face = np.column_stack([x.ravel(), y.ravel(), np.full(x.size, 0.5)])
    turns = [rotation_about([1, 0, 0], k * np.pi / 2) for k in range(4)]
    turns += [rotation_about([0, 1, 0], s * np.pi / 2) for s in (1, -1)]
    return np.vstack([face @ t.T for t in turns])


def clouds() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(71)
    shell = rng.normal(size=(20_000, 3))
    shell *= rng.uniform(0.98, 1.0, size=(20_000, 1)) / np.linalg.norm(shell, axis=1)[:, None]
    return {
        "sphere far from the origin": sphere(20_000) @ random_rotation(rng).T + [40.0, -7.0, 3.0],
        "noisy shell": shell,
        "cube surface (ties)": cube_surface(41),
        "axis-aligned cube grid (ties)": np.stack(np.meshgrid(*[np.linspace(-1, 1, 15)] * 3), axis=-1).reshape(-1, 3),
        "flat disc": np.column_stack([rng.uniform(-1, 1, (8000, 2)), np.zeros(8000)]) @ random_rotation(rng).T,
        "collinear": np.outer(rng.uniform(-1, 1, 5000), [1.0, 2.0, -0.5]),
        "duplicates": np.repeat(cloud(rng, 500), 10, axis=0),
    }


CLOUDS = clouds()


def corner_directions() -> np.ndarray:
    """Every corner of a few cells on each face, including cube edges and corners."""
    corners = {(axis, positive, s, t) for axis in range(3) for positive in (True, False)
               for s in (0, 1, cells.RESOLUTION // 2, cells.RESOLUTION) for t in (0, 7, cells.RESOLUTION)}
    return np.array([cells.corner_direction(c) for c in sorted(corners)])


def query_directions(rng: np.random.Generator) -> np.ndarray:
    """Random directions, cell corners and directions a hair off them (cell boundaries), axes, and
    the same directions scaled by 1e-200 and 1e200."""
    corners = corner_directions()
    near = corners + 1e-13 * rng.normal(size=corners.shape)
    axes = np.vstack([np.eye(3), -np.eye(3), [[1.0, 1.0, 0.0], [0.0, -1.0, 1.0], [1.0, -1.0, 1.0]]])
    base = np.vstack([unit_vectors(rng, 400), corners, near, axes])
    return np.vstack([base, 1e-200 * base[:5], 1e200 * base[:5]])


def assert_exact(index: SupportIndex, directions: np.ndarray) -> None:
    for d in directions:
        values = index.points @ d
        found = index.argmax(tuple(d.tolist()))
        assert values[found] == values.max(), f"direction {d}: {values[found]!r} < {values.max()!r}"


@pytest.mark.parametrize("name", CLOUDS)
def test_cached_cells_give_the_exact_maximum(name):
    """First asked (cells built) and asked again (cells cached), and a hair off: the exact argmax."""
    index = SupportIndex(CLOUDS[name], 32)
    rng = np.random.default_rng(5)
    directions = query_directions(rng)
    assert_exact(index, directions)
    assert_exact(index, directions)
    assert_exact(index, directions * (1.0 + 1e-12 * rng.normal(size=directions.shape)))


@pytest.mark.parametrize("name", CLOUDS)
def test_cells_hold_every_point_their_certificate_leaves_out(name):
    """Each cap is exactly the points above the support value less the slab along its corner, and
    every point a cell leaves out is below its certificate's bound along each of its corners."""
    index = SupportIndex(CLOUDS[name], 32)
    slab = 4.0 * index._cells._first_slab
    corners = corner_directions()[::7]
    rows, tops = index.caps(corners, slab, len(index.points))
    for corner, cap, top in zip(corners, rows, tops):
        values = index.points @ corner
        assert top == values.max()
        assert np.array_equal(np.sort(cap), np.flatnonzero(values > top - slab))
    for d in unit_vectors(np.random.default_rng(4), 30):
        index.argmax(tuple(d.tolist()))
    for key, cell in index._cells._cells.items():
        if cell.rows is None:
            continue
        outside = np.setdiff1d(np.arange(len(index.points)), cell.rows)
        for corner, bound in zip(cells.cell_corners(key), cell.outside):
            assert (index.points[outside] @ cells.corner_direction(corner)).max(initial=-np.inf) <= bound


def test_zero_and_non_finite_directions_go_to_the_branch_and_bound(monkeypatch):
    index = SupportIndex(CLOUDS["noisy shell"], 32)
    calls = count_branch_and_bound(index, monkeypatch)
    for d in [(0.0, 0.0, 0.0), (-0.0, 0.0, -0.0), (1.0, np.nan, 0.0), (np.inf, 1.0, 0.0)]:
        assert 0 <= index.argmax(d) < len(index.points)
    assert len(calls) == 4


def test_cell_weights_rebuild_the_direction():
    """A direction is a non-negative combination of its cell's corners: d == scale x sum(w_i u_i)."""
    rng = np.random.default_rng(2)
    directions = np.vstack([rng.normal(size=(2000, 3)), corner_directions(), np.eye(3), -np.eye(3),
                            [[1.0, 1.0, 1.0], [-1.0, 1.0, 0.0], [0.5, -0.5, 0.5]]])
    for d in directions:
        key, weights, scale = cells.cell_of(tuple(d.tolist()))
        corners = np.array([cells.corner_direction(c) for c in cells.cell_corners(key)])
        assert min(weights) >= 0.0 and sum(weights) == pytest.approx(1.0, abs=1e-15)
        assert np.abs(corners).max() == 1.0
        np.testing.assert_allclose(scale * np.array(weights) @ corners, d, rtol=0, atol=1e-14 * np.abs(d).max())


def test_failing_certificates_fall_back_and_thicken(monkeypatch):
    """With a slab far too thin, certificates fail: the branch and bound answers, exactly, and the
    cells are rebuilt with thicker slabs until the certificate holds."""
    monkeypatch.setattr(cells, "FIRST_SLAB", 1e-14)
    index = SupportIndex(CLOUDS["sphere far from the origin"], 32)
    directions = unit_vectors(np.random.default_rng(8), 60)
    assert_exact(index, directions)
    slabs = [cell.slab for cell in index._cells._cells.values()]
    assert max(slabs) > index._cells._first_slab
    assert_exact(index, directions)


def count_branch_and_bound(index: SupportIndex, monkeypatch) -> list:
    calls = []
    search = index.branch_and_bound
    monkeypatch.setattr(index, "branch_and_bound", lambda d: calls.append(d) or search(d))
    return calls


@pytest.mark.parametrize("offset", [0.0, 1e5])
def test_directions_asked_again_scan_only_their_cell(offset, monkeypatch):
    """On a sphere (at its origin or far from it), directions asked a second time (or a little off)
    are certified in their cell."""
    index = SupportIndex(sphere(50_000) + offset, 64)
    calls = count_branch_and_bound(index, monkeypatch)
    rng = np.random.default_rng(9)
    directions = unit_vectors(rng, 100)
    assert_exact(index, directions)
    calls.clear()
    assert_exact(index, directions + 1e-6 * rng.normal(size=directions.shape))
    assert not calls
    assert max(len(cell.rows) for cell in index._cells._cells.values()) < 0.05 * len(index.points)


def test_small_memory_budget_drops_old_entries_and_stays_exact(monkeypatch):
    """With room for a few hundred points, old caps and cells are dropped (the totals stay within
    the budget) and answers stay exact."""
    monkeypatch.setattr(cells, "MAX_KEPT_SHARE", 0.02)
    index = SupportIndex(CLOUDS["noisy shell"], 32)
    directions = unit_vectors(np.random.default_rng(10), 200)
    kept = index._cells
    for d in directions:
        assert_exact(index, d[None])
        for store in (kept._caps, kept._cells):
            assert store.total <= store.budget
            assert store.total == sum(len(item.rows) for item in store.values() if item.rows is not None)
    assert len(kept._cells) < 100
    assert_exact(index, directions)


def test_flat_cloud_along_its_normal_goes_to_the_branch_and_bound(monkeypatch):
    """Along a flat cloud's normal every point ties: the caps are too large to keep, and the branch
    and bound answers (exactly)."""
    points = CLOUDS["flat disc"]
    index = SupportIndex(points, 32)
    calls = count_branch_and_bound(index, monkeypatch)
    normal = np.linalg.svd(points - points.mean(axis=0), full_matrices=False)[2][2]
    assert_exact(index, np.array([normal, -normal, normal + 1e-3 * np.array([1.0, 0.0, 0.0])]))
    assert len(calls) >= 2


def moves(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Small steps of rotation and translation, as in an animation, plus one jump."""
    matrices, rotation, offset = [], np.eye(3), np.array([0.85, 0.1, 0.05])
    for k in range(count):
        rotation = rotation_about(rng.normal(size=3), 0.01) @ rotation
        offset = offset + 2e-3 * rng.normal(size=3)
        matrices.append(affine(rotation, offset if k != count // 2 else offset + [0.5, 0.0, 0.0]))
    return matrices


@pytest.mark.parametrize("kind", ["spheres", "cubes (ties)"])
def test_moved_prepared_pair_collides_as_unindexed(kind, monkeypatch):
    """Prepared shapes moved frame by frame (the caches warm) collide exactly as shapes without
    an index, asked again after moving away and back too; cubes agree with the exact reference (a
    reference for the spheres would take Qhull on 30M points)."""
    monkeypatch.setattr(core.shapes.convex, "INDEX_MIN_POINTS", 1000)
    rng = np.random.default_rng(13)
    if kind == "spheres":
        points_a = sphere(6000) @ random_rotation(rng).T
        points_b = sphere(5000, 0.4) @ random_rotation(rng).T
    else:
        points_a, points_b = cube_surface(33), 0.8 * cube_surface(29) @ random_rotation(rng).T
    a, b = core.Polytope(points_a), core.Polytope(points_b)
    plain_a, plain_b = core.Polytope(points_a, index=False), core.Polytope(points_b, index=False)
    assert a._index is not None and b._index is not None
    answers = []
    for matrix in moves(rng, 12):
        contact = core.collide(a, b.transformed(matrix))
        expected = core.collide(plain_a, plain_b.transformed(matrix))
        assert contact.status == expected.status
        if kind == "spheres":  # no ties: the same supports, so the very same answer
            assert contact.signed_distance == expected.signed_distance
            assert np.array_equal(contact.normal, expected.normal)
        else:
            assert contact.signed_distance == pytest.approx(expected.signed_distance, abs=1e-12)
        answers.append((matrix, contact))
    for matrix, contact in answers[:3]:
        again = core.collide(a, b.transformed(matrix))
        assert again.signed_distance == contact.signed_distance and np.array_equal(again.normal, contact.normal)
    if kind == "cubes (ties)":
        matrix, contact = answers[-1]
        moved_b = points_b @ matrix[:3, :3].T + matrix[:3, 3]
        assert_matches_reference(contact, reference_contact(points_a, moved_b), points_a, moved_b)
