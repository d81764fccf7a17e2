"""Many small pairs measured together (``pair_distances``, ``inside.stacked_crossing_windings``,
``pushout.common_balls`` and ``pushout_witnesses_many``): every number the same as each pair alone down its trees
(``mesh_distance``, ``nearest_on_surface``, ``crossing_windings``, ``common_ball``), and the distances coal's.

Seeded kitbashed roofs (``benchmarks/kitbash_scene.py``: notched tiles, battens, rafters and posts turned a little,
overlapping), their parts moved at random so that some pairs come apart, others touch or cross.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import core.mesh.contact.pushout as pushout_module
import core.mesh.pair_distances as pair_distances_module
from core import overlapping_pairs
from core.mesh import Solid, TriangleMesh, measure_solid_pairs
from core.mesh.contact.mesh_pairs import mesh_pair, mesh_pairs_together
from core.mesh.contact.pushout import common_ball, common_balls, pushout_witnesses_many
from core.mesh.contact.result import pair_options
from core.mesh.contact.volumes import pair_volumes
from core.mesh.distance import mesh_distance, nearest_on_surface
from core.mesh.inside import crossing_windings, stacked_crossing_windings
from core.mesh.pair_distances import mesh_distances, nearest_distances
from core.mesh.triangle_distance import triangle_pair_distance
from mesh_fixtures import box, coal_distance, coal_surface_distance, mesh, torus, uv_sphere

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from kitbash_scene import roof  # noqa: E402  (needs the path above)


def roof_solids(seed: int, rows: int = 3, columns: int = 4) -> list[Solid]:
    _names, meshes = roof(rows, columns, np.random.default_rng(seed))
    return [Solid(TriangleMesh.from_arrays(vertices, triangles), name=str(k))
            for k, (vertices, triangles) in enumerate(meshes)]


def candidate_pairs(solids: list[Solid], margin: float) -> list[tuple[int, int]]:
    lows = np.array([solid.bounds[0] for solid in solids])
    highs = np.array([solid.bounds[1] for solid in solids])
    return [tuple(pair) for pair in overlapping_pairs(lows, highs, margin=margin).tolist()]


def shuffled_mesh_pairs(seed: int) -> list[tuple[TriangleMesh, TriangleMesh]]:
    """A roof's neighbouring parts, B moved by a random few centimetres (apart, touching or crossing), and pairs moved
    exactly onto each other's faces (distance 0)."""
    solids = roof_solids(seed)
    rng = np.random.default_rng(seed + 10)
    pairs = []
    for i, j in candidate_pairs(solids, 0.05):
        a, b = solids[i].mesh, solids[j].mesh
        offset = rng.normal(size=3) * 0.02 if len(pairs) % 4 else np.zeros(3)
        pairs.append((a, TriangleMesh.from_arrays(b.vertices + offset, b.triangles)))
    return pairs


@pytest.mark.parametrize("seed", range(2))
def test_stacked_distances_are_the_trees_distances(seed):
    """The same distance to the bit; the same closest triangle pair and points whenever the surfaces are apart (of
    equally close pairs both keep the smallest triangles); when they touch or cross, a point common to both."""
    pairs = shuffled_mesh_pairs(seed)
    stacked = mesh_distances(pairs)
    apart = touching = 0
    for (a, b), found in zip(pairs, stacked):
        alone = mesh_distance(a, b)
        assert found.distance == alone.distance
        if alone.distance > 0.0:
            apart += 1
            assert (found.triangle_a, found.triangle_b) == (alone.triangle_a, alone.triangle_b)
            assert (found.point_a == alone.point_a).all() and (found.point_b == alone.point_b).all()
        else:
            touching += 1
            assert (found.point_a == found.point_b).all()
            for mesh in (a, b):
                assert nearest_on_surface(mesh, found.point_a[None])[0][0] <= 1e-12
        assert found.distance == pytest.approx(coal_distance(a, b), abs=1e-9)
    assert apart >= 20 and touching >= 10


def test_a_pair_measured_alone_or_with_others_is_the_same_and_hints_only_prune(monkeypatch):
    """Blocks of any size give each pair the same answer; an upper bound too small (nothing within it) or just short
    of the distance only prunes."""
    pairs = shuffled_mesh_pairs(2)
    together = mesh_distances(pairs)
    monkeypatch.setattr(pair_distances_module, "BLOCK_ROWS", 1)
    for (a, b), found in zip(pairs, together):
        for hint in (None, 0.0, 0.5 * found.distance, 0.999 * found.distance, found.distance):
            [alone] = mesh_distances([(a, b)], [hint])
            assert (alone.distance, alone.triangle_a, alone.triangle_b) == (found.distance, found.triangle_a,
                                                                             found.triangle_b)
            assert (alone.point_a == found.point_a).all() and (alone.point_b == found.point_b).all()


def test_stacked_nearest_distances_and_windings_are_the_trees():
    """Points all over a roof, its parts' vertices and face centres among them (on the surfaces: winding numbers by
    the perturbation), against each part's own tree: the same distances to the bit, the same winding numbers."""
    solids = roof_solids(3)
    meshes = [solid.mesh for solid in solids]
    rng = np.random.default_rng(4)
    lows = np.min([solid.bounds[0] for solid in solids], axis=0)
    highs = np.max([solid.bounds[1] for solid in solids], axis=0)
    owners = rng.integers(0, len(meshes), 3000)
    points = rng.uniform(lows, highs, (3000, 3))
    near = rng.random(3000) < 0.5  # half of them near their own part: inside it, or just outside
    centres = np.array([meshes[k].vertices.mean(axis=0) for k in owners[near]])
    points[near] = centres + rng.normal(size=(near.sum(), 3)) * 0.02
    on = rng.integers(0, 3000, 300)
    points[on[:150]] = [meshes[k].vertices[rng.integers(len(meshes[k].vertices))] for k in owners[on[:150]]]
    points[on[150:]] = [meshes[k].corners[rng.integers(len(meshes[k].triangles))].mean(axis=0)
                        for k in owners[on[150:]]]
    distances = nearest_distances(meshes, points, owners)
    windings = stacked_crossing_windings(meshes, points, owners)
    assert 0 < (windings > 0).sum() < len(points)
    for k, mesh in enumerate(meshes):
        mine = np.flatnonzero(owners == k)
        assert (distances[mine] == nearest_on_surface(mesh, points[mine], bvh=solids[k].bvh)[0]).all()
        assert (windings[mine] == crossing_windings(mesh, points[mine], bvh=solids[k].bvh)).all()
        assert (windings[mine] == crossing_windings(mesh, points[mine])).all()


@pytest.mark.parametrize("seed", range(2))
def test_common_balls_are_each_pairs_common_ball(seed, monkeypatch):
    """The centres, their winding numbers and distances found for all pairs at once give every pair the ball
    ``common_ball`` finds alone, to the bit (with the overlap's centroid, and without one), while the vertices and
    centres whose balls cannot reach the centroid's are left out (some at each stage)."""
    solids = roof_solids(seed)
    pairs = [(solids[i], solids[j]) for i, j in candidate_pairs(solids, 1e-5)]
    centroids = [centroid for _volume, centroid, _error in pair_volumes(pairs)]
    requests = [(a, b, centroid) for (a, b), centroid in zip(pairs, centroids)]
    requests += [(a, b, None) for a, b in pairs[::3]]
    left_out = []
    may_exceed = pushout_module._may_exceed
    monkeypatch.setattr(pushout_module, "_may_exceed",
                        lambda *args: left_out.append(~may_exceed(*args)) or may_exceed(*args))
    balls = common_balls(requests)
    assert sum(ball is not None for ball in balls) >= 10
    assert all(stage.any() for stage in left_out) and len(left_out) == 2  # vertices, then centres
    for request, ball in zip(requests, balls):
        alone = common_ball(*request)
        assert (ball is None) == (alone is None)
        if ball is not None:
            assert (ball[0] == alone[0]).all() and ball[1] == alone[1]


def test_clash_answers_are_the_same_as_down_the_trees_and_pair_by_pair(monkeypatch):
    """A roof's clash check (every candidate pair, in lockstep) gives each pair the answer it gets alone
    (``mesh_pair``), and the answers of the check without the stacked steps (the trees' distances, the pair's own
    common ball), field for field to the bit."""
    solids = roof_solids(5)
    pairs = [(solids[i], solids[j]) for i, j in candidate_pairs(solids, 1e-5)]
    tolerance, touch = 1e-9, 1e-5
    _apart, answers = measure_solid_pairs(pairs, tolerance=tolerance, touch_tolerance=touch)
    options = [pair_options(a, b, tolerance, touch, None) for a, b in pairs]
    together = [contact for contact, _start in mesh_pairs_together(pairs, options)]
    monkeypatch.setattr(pair_distances_module, "STACKED_TRIANGLE_PAIRS", 0)
    monkeypatch.setattr(pushout_module, "STACKED_TRIANGLE_PAIRS", 0)
    monkeypatch.setattr(pushout_module, "STACKED_TRIANGLES", 0)
    trees = [mesh_pair(a, b, option)[0] for (a, b), option in zip(pairs, options)]
    statuses = set()
    for answer, lockstep, alone in zip(answers, together, trees):
        assert answer is not None
        statuses.add(answer.status)
        for field in ("status", "signed_distance", "normal", "point_a", "point_b", "depth_lower_bound",
                      "overlap_volume", "overlap_centroid"):
            for other in (lockstep, alone):
                assert np.array_equal(np.asarray(getattr(answer, field), dtype=object),
                                      np.asarray(getattr(other, field), dtype=object)), field
    assert statuses == {"penetrating", "touching", "separated"}


def test_push_out_witnesses_are_the_closest_points_of_the_moved_pair():
    """Each witness pair is the midpoint of the moved pair's closest points down the trees (``mesh_distance``)."""
    solids = roof_solids(6)
    pairs = [(solids[i], solids[j]) for i, j in candidate_pairs(solids, 1e-5)][:40]
    rng = np.random.default_rng(6)
    requests = []
    for a, b in pairs:
        normal = rng.normal(size=3)
        requests.append((a, b, float(rng.uniform(0.0, 0.05)), normal / np.linalg.norm(normal), 1e-9))
    for (a, b, depth, normal, tolerance), (point_a, point_b) in zip(requests, pushout_witnesses_many(requests)):
        moved = b.translated(depth * normal)
        closest = mesh_distance(a.mesh, moved.mesh)
        if closest.distance > 0.0:
            assert (point_a == 0.5 * (closest.point_a + closest.point_b)).all()
        np.testing.assert_allclose(point_a - point_b, depth * normal, rtol=0.0, atol=1e-15)


def check_first_least(a: TriangleMesh, b: TriangleMesh, found) -> None:
    """``found`` is the first (A's triangle major) of the least of every triangle pair's exact distance: the
    definition, every triangle pair measured (touching pairs: the first pair at 0, and its points)."""
    rows_a, rows_b = np.repeat(np.arange(len(a.triangles)), len(b.triangles)), np.tile(np.arange(len(b.triangles)),
                                                                                     len(a.triangles))
    distance, point_a, point_b = triangle_pair_distance(a.corners[rows_a], b.corners[rows_b])
    first = int(np.argmin(distance))
    assert (found.distance, found.triangle_a, found.triangle_b) == (distance[first], rows_a[first], rows_b[first])
    assert found.point_a.tobytes() == point_a[first].tobytes() and found.point_b.tobytes() == point_b[first].tobytes()


@pytest.mark.parametrize("seed", range(2))
def test_screening_axes_only_prune(seed):
    """``axes`` screen the triangle pairs by their extents along each pair's axis: whatever the axes (the push-out's
    normal, it lengthened or shortened, random directions, zero), the answers are those without them, to the bit,
    with or without hints: a roof's penetrating pairs moved by their push-outs (just touching: a push-out's
    witnesses, where the screen drops most triangle pairs) and its other pairs moved at random; without hints every
    answer checked against every triangle pair measured."""
    solids = roof_solids(seed + 8)
    pairs = [(solids[i], solids[j]) for i, j in candidate_pairs(solids, 1e-5)]
    _apart, answers = measure_solid_pairs(pairs, tolerance=1e-9, touch_tolerance=1e-5)
    pushed = [k for k, answer in enumerate(answers) if answer.status == "penetrating"]
    rng = np.random.default_rng(seed)
    meshes = [(a.mesh, b.mesh) for a, b in pairs]
    offsets = np.array([-answer.signed_distance * answer.normal if k in pushed else rng.normal(size=3) * 0.02
                        for k, answer in enumerate(answers)])
    normals = np.array([answer.normal for answer in answers])
    randoms = rng.normal(size=normals.shape)
    kinds = [normals, normals * rng.uniform(0.5, 2.0, size=(len(pairs), 1)), randoms, np.zeros_like(normals)]
    hints = [-answers[k].signed_distance * 2.0**-10 if k in pushed else None for k in range(len(pairs))]
    for upper_bounds in (None, hints):
        expected = mesh_distances(meshes, upper_bounds, offsets)
        assert len(pushed) >= 10 and sum(expected[k].distance == 0.0 for k in pushed) >= 5
        if upper_bounds is None:
            for (a, b), offset, found in zip(meshes, offsets, expected):
                check_first_least(a, TriangleMesh.from_arrays(b.vertices + offset, b.triangles), found)
        for axes in kinds:
            for found, alone in zip(mesh_distances(meshes, upper_bounds, offsets, axes), expected):
                assert (found.distance, found.triangle_a, found.triangle_b) == (alone.distance, alone.triangle_a,
                                                                                 alone.triangle_b)
                assert found.point_a.tobytes() == alone.point_a.tobytes()
                assert found.point_b.tobytes() == alone.point_b.tobytes()


def test_pairs_measured_with_b_moved_are_the_translated_solids():
    """``offsets``: each pair's B measured as ``Solid.translated`` moves it, to the bit (distance, triangles, points),
    with the same hints; offsets along the axes (zero components) and a part with coordinates of -0.0 among them."""
    solids = roof_solids(7)
    corner = TriangleMesh.from_arrays(solids[0].mesh.vertices - solids[0].mesh.vertices.min(axis=0) * [1, 1, 0],
                                      solids[0].mesh.triangles)
    vertices = np.array(corner.vertices)
    vertices[vertices == 0.0] = -0.0
    solids.append(Solid(TriangleMesh.from_arrays(vertices, corner.triangles)))
    pairs = [(solids[i], solids[j]) for i, j in candidate_pairs(solids, 0.05)] + [(solids[-1], solids[0])]
    rng = np.random.default_rng(7)
    axes = np.vstack([np.eye(3), -np.eye(3)])
    offsets = np.array([axes[k % 6] * rng.uniform(0.0, 0.03) if k % 2 else rng.normal(size=3) * 0.02
                        for k in range(len(pairs))])
    hints = [None if k % 3 == 0 else float(rng.uniform(0.0, 0.01)) for k in range(len(pairs))]
    found = mesh_distances([(a.mesh, b.mesh) for a, b in pairs], hints, offsets)
    translated = [b.translated(offset).mesh for (_a, b), offset in zip(pairs, offsets)]
    expected = mesh_distances([(a.mesh, moved) for (a, _b), moved in zip(pairs, translated)], hints)
    touching = 0
    for (a, _b), moved, moved_pair, alone in zip(pairs, translated, found, expected):
        assert (moved_pair.distance, moved_pair.triangle_a, moved_pair.triangle_b) == (
            alone.distance, alone.triangle_a, alone.triangle_b)
        assert moved_pair.point_a.tobytes() == alone.point_a.tobytes()
        assert moved_pair.point_b.tobytes() == alone.point_b.tobytes()
        assert moved_pair.distance == mesh_distance(a.mesh, moved).distance
        assert moved_pair.distance == pytest.approx(coal_distance(a.mesh, moved), abs=1e-9)
        touching += moved_pair.distance == 0.0
    assert 0 < touching < len(pairs)


def test_nearest_distances_and_windings_of_meshes_of_many_triangle_groups():
    """Meshes of hundreds to thousands of triangles (their triangles' boxes tested a group at a time): the same
    distances and winding numbers as each mesh's own tree, points inside, outside, on vertices and far away; the
    distances coal's."""
    meshes = [uv_sphere(1.0, 26, 40), torus(0.35, 0.12, 24, 12), uv_sphere(0.5, 10, 12),
              torus(2.0, 0.5, 48, 20)]
    solids = [Solid(mesh) for mesh in meshes]
    rng = np.random.default_rng(8)
    owners = rng.integers(0, len(meshes), 2000)
    points = rng.normal(size=(2000, 3)) * rng.choice([0.2, 0.6, 1.5, 6.0], size=(2000, 1))
    on = rng.integers(0, 2000, 100)
    points[on] = [meshes[k].vertices[rng.integers(len(meshes[k].vertices))] for k in owners[on]]
    distances = nearest_distances(meshes, points, owners)
    windings = stacked_crossing_windings(meshes, points, owners)
    assert 0 < (windings > 0).sum() < len(points)
    for k, (mesh, solid) in enumerate(zip(meshes, solids)):
        mine = np.flatnonzero(owners == k)
        assert (distances[mine] == nearest_on_surface(mesh, points[mine], bvh=solid.bvh)[0]).all()
        assert (windings[mine] == crossing_windings(mesh, points[mine], bvh=solid.bvh)).all()
        for p in mine[:5]:
            assert distances[p] == pytest.approx(coal_surface_distance(points[p], mesh), abs=1e-9)


def test_common_balls_of_pairs_too_large_to_pair_every_triangle_are_common_ball():
    """Spheres and tori of hundreds to two thousand triangles overlapping (more triangle pairs than the stacked
    distances take, few enough triangles for the balls' stacked passes): each pair's ``common_ball``, to the bit."""
    shapes = [uv_sphere(0.5, 26, 40), torus(0.35, 0.12, 24, 12), uv_sphere(0.4, 10, 12)]
    rng = np.random.default_rng(9)
    requests = []
    for k in range(12):
        a = Solid(shapes[k % 3])
        b = Solid(TriangleMesh.from_arrays(shapes[(k + 1) % 3].vertices + rng.normal(size=3) * 0.25,
                                           shapes[(k + 1) % 3].triangles))
        requests.append((a, b, None if k % 4 == 0 else rng.normal(size=3) * 0.05))
    assert any(len(a.mesh.triangles) * len(b.mesh.triangles) > pair_distances_module.STACKED_TRIANGLE_PAIRS
               for a, b, _centroid in requests)
    balls = common_balls(requests)
    assert sum(ball is not None for ball in balls) >= 6
    assert any(ball is not None and centroid is not None and not (ball[0] == centroid).all()
               for ball, (_a, _b, centroid) in zip(balls, requests))  # a vertex's centre beats the centroid
    for request, ball in zip(requests, balls):
        alone = common_ball(*request)
        assert (ball is None) == (alone is None)
        if ball is not None:
            assert (ball[0] == alone[0]).all() and ball[1] == alone[1]


@pytest.mark.parametrize("centroid_height", [0.5999999, 0.6000001])
def test_a_vertex_ball_just_larger_than_the_centroid_ball_is_not_left_out(centroid_height):
    """A pyramid standing 0.4 into a slab: the middle of its base (normal straight down, depth 0.4, also its distance
    to the slab's box) gives a ball of radius 0.2, exactly half its depth, and the given centroid's ball is a hair
    smaller or larger. Leaving out balls that cannot reach the centroid's must keep the one that just does."""
    slab = Solid(box((0, 0, 0), (10, 10, 1)))
    base = [[4, 4, 0.4], [6, 4, 0.4], [6, 6, 0.4], [4, 6, 0.4]]
    pyramid = Solid(mesh(np.array(base + [[5, 5, 0.4], [5, 5, 3.0]]),
                         np.array([[4, 1, 0], [4, 2, 1], [4, 3, 2], [4, 0, 3],
                                   [0, 1, 5], [1, 2, 5], [2, 3, 5], [3, 0, 5]])))
    request = (slab, pyramid, np.array([5.0, 5.0, centroid_height]))
    [ball] = common_balls([request])
    alone = common_ball(*request)
    assert (ball[0] == alone[0]).all() and ball[1] == alone[1]
    assert ball[1] == pytest.approx(0.2 if centroid_height < 0.6 else 0.2000001, abs=1e-12)
