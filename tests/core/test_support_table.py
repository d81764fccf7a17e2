"""The cube-map support table returns what a full scan returns (the first point of largest value), and
prepared polytopes that switch to it give the same answers as unprepared ones."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull

import core
import core.shapes.convex
from core.mesh import Solid
from core.mesh.trimesh import TriangleMesh
from core.support.table import SupportTable
from generators import affine, awkward_clouds, cloud, random_rotation, sphere, unit_vectors


CLOUDS = awkward_clouds()


def directions(rng: np.random.Generator) -> list:
    axes = np.vstack([np.eye(3), -np.eye(3), [[1.0, 1.0, 0.0], [0.0, -1.0, 1.0], [1.0, -1.0, 1.0]]])
    rounded = np.round(4 * unit_vectors(rng, 100)) / 4  # directions on the cells' edges and corners
    scaled = [1e-100 * unit_vectors(rng, 3), 1e100 * unit_vectors(rng, 3)]
    many = np.vstack([unit_vectors(rng, 600), axes, rounded, *scaled])
    return [tuple(d) for d in many.tolist() if any(d)]


@pytest.mark.parametrize("name", CLOUDS)
@pytest.mark.parametrize("resolution", [None, 2, 9])
def test_table_returns_the_first_maximum_of_a_full_scan(name, resolution):
    points = CLOUDS[name]
    table = SupportTable(points, resolution)
    for d in directions(np.random.default_rng(len(points))):
        assert table.support(d) == tuple(points[points.dot(d).argmax()].tolist())
        row = table.support_row(d)
        assert (row is None) == (table.support(d) is None)
        assert row is None or row == points.dot(d).argmax()


@pytest.mark.parametrize("name", ["sphere surface", "flat disc", "cube grid", "duplicates"])
def test_support_rows_are_the_rows_of_the_support_points(name):
    """``support_rows`` (how warm EPA names its vertices) gives the rows of what ``support`` answers, before the
    table is built (caps, index, scan), with it, and for a non-polytope body's vertices (the plain scan)."""
    rng = np.random.default_rng(5)
    polytope = core.shapes.convex.Polytope(CLOUDS[name], affine(random_rotation(rng), (1.0, -2.0, 0.5)))
    polytope.defer_support_table()
    local = np.array(directions(rng)[:200])
    local = local / np.linalg.norm(local, axis=1)[:, None]
    world = local @ np.linalg.inv(polytope.affine[0])  # world directions whose local ones are ``local``
    polytope.support_candidates(local[0], 0.05)  # a cap, which answers directions near it
    for built in (False, True):
        if built:
            polytope.build_support_table()
        rows = polytope.support_rows(local)
        placed = polytope.vertices()[rows] @ polytope.affine[0].T + polytope.affine[1]
        expected = np.array([polytope.support(tuple(d)) for d in world.tolist()])
        np.testing.assert_allclose(placed, expected, rtol=0, atol=1e-12)
    box = core.Box((0.5, 1.0, 2.0))
    assert (box.vertices()[box.support_rows(local)] * local > -1e-12).all()


def test_table_reads_few_points_per_query_on_a_sphere():
    table = SupportTable(CLOUDS["sphere surface"])
    assert np.mean([len(c) for c in table._candidates]) < 0.1 * len(CLOUDS["sphere surface"])


def test_table_leaves_out_of_range_directions_to_the_scan():
    table = SupportTable(CLOUDS["solid blob"])
    assert table.support((0.0, 0.0, 0.0)) is None
    assert table.support((1e-200, 0.0, 0.0)) is None
    assert table.support((np.nan, 1.0, 0.0)) is None


def test_prepared_polytopes_switch_to_the_table_and_keep_their_answers(monkeypatch):
    rng = np.random.default_rng(5)
    points_a, points_b = sphere(3000, 0.5), sphere(2500, 0.4) * [1.0, 0.5, 1.5] + 0.01 * cloud(rng, 2500)
    monkeypatch.setattr(core.shapes.convex, "TABLE_POINTS", (0, 0))
    scan_a, scan_b = core.Polytope(points_a), core.Polytope(points_b)
    monkeypatch.setattr(core.shapes.convex, "TABLE_POINTS", (1000, 10_000))
    monkeypatch.setattr(core.shapes.convex, "TABLE_AFTER_QUERIES", 1)
    table_a, table_b = core.Polytope(points_a), core.Polytope(points_b)
    for k in range(12):
        matrix = affine(random_rotation(rng) * rng.uniform(0.5, 2.0), rng.normal(size=3) * 0.4)
        fast = core.collide(table_a, table_b.transformed(matrix))
        scanned = core.collide(scan_a, scan_b.transformed(matrix))
        assert fast.status == scanned.status and fast.signed_distance == scanned.signed_distance
        assert fast.epa_iterations == scanned.epa_iterations
        for name in ("normal", "point_a", "point_b"):
            np.testing.assert_array_equal(getattr(fast, name), getattr(scanned, name))
    assert scan_a._table is None and table_a._table.table is not None and table_b._table.table is not None


def test_a_deferred_table_waits_for_its_owner_and_answers_as_the_scan_does(monkeypatch):
    monkeypatch.setattr(core.shapes.convex, "TABLE_AFTER_QUERIES", 2)
    points = sphere(3000, 0.5)
    shape = core.Polytope(points)
    moved = shape.transformed(affine(np.eye(3), [0.5, 0.0, 0.0]))  # made before: it shares the choice and table
    shape.defer_support_table()
    directions = np.random.default_rng(9).normal(size=(50, 3))
    for direction in directions:  # far past TABLE_AFTER_QUERIES: still scans
        scanned = points[np.argmax(points @ direction)] + [0.5, 0.0, 0.0]
        assert moved.support(tuple(direction.tolist())) == tuple(scanned.tolist())
    assert shape.support_table_pending and moved.support_table_pending
    moved.build_support_table()
    assert not shape.support_table_pending and shape._table.table is not None
    for direction in directions:
        scanned = points[np.argmax(points @ direction)] + [0.5, 0.0, 0.0]
        assert moved.support(tuple(direction.tolist())) == tuple(scanned.tolist())
    few = core.Polytope(points[:100])  # below TABLE_POINTS: scans stay, nothing to build
    few.defer_support_table()
    few.build_support_table()
    assert few._table is None and not few.support_table_pending


def _sphere_hull() -> tuple[np.ndarray, np.ndarray]:
    """3,000 points on a sphere about the origin and their hull's triangles, wound outward."""
    points = sphere(3000, 0.5)
    triangles = ConvexHull(points).simplices
    corners = points[triangles]
    inward = np.einsum("ij,ij->i", np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]),
                       corners[:, 0]) < 0.0
    triangles[inward] = triangles[inward][:, ::-1]
    return points, triangles


def test_solids_name_the_polytopes_they_measure_with():
    points, triangles = _sphere_hull()
    convex = Solid(TriangleMesh.from_arrays(points, triangles))
    [hull] = convex.prepared_polytopes()
    assert convex.method == "convex" and hull is convex.hull and hull.support_table_pending
    parts = Solid(TriangleMesh.from_arrays(np.vstack([points, points + 2.0]),
                                           np.vstack([triangles, triangles + len(points)])))
    assert parts.method == "parts" and parts.prepared_polytopes() == [part.polytope for part in parts.parts]


def test_a_solid_defers_the_tables_of_its_polytopes_made_later_too(monkeypatch):
    """``Solid.defer_support_tables``: a non-convex object's hull, made after the choice (at its pair's first
    penetrating measurement), by a moved copy, scans until its table is built; without the choice nothing is
    pending and the table builds itself after a few queries."""
    monkeypatch.setattr(core.shapes.convex, "TABLE_AFTER_QUERIES", 2)
    points, triangles = _sphere_hull()
    dented = points.copy()
    dented[0] *= 0.8  # one vertex pushed in: no longer convex
    deferred, left = (Solid(TriangleMesh.from_arrays(dented, triangles)) for _ in range(2))
    deferred.defer_support_tables()
    assert deferred.method == "mesh" and deferred.pending_support_tables() == []  # no polytope made yet
    moved = deferred.transformed(affine(np.eye(3), [0.5, 0.0, 0.0]))
    directions = np.random.default_rng(3).normal(size=(20, 3))
    for direction in directions:
        scanned = dented[np.argmax(dented @ direction)] + [0.5, 0.0, 0.0]
        assert moved.hull.support(tuple(direction.tolist())) == tuple(scanned.tolist())
    assert deferred.pending_support_tables() == [deferred.hull] and moved.hull.support_table_pending
    deferred.hull.build_support_table()
    assert deferred.pending_support_tables() == [] and not moved.hull.support_table_pending
    for direction in directions:
        left.hull.support(tuple(direction.tolist()))
    assert left.pending_support_tables() == [] and not left.hull.support_table_pending  # built on its own
