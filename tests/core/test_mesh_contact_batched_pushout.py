"""The push-out search of small non-convex pairs asks its exact test many offsets at once (``shares_interior_after``,
several bisection steps a batch): the same answers as asking offset after offset down the triangle trees, and the
push-outs still certified by manifold3d, their penetrating pairs those coal finds colliding. The screen that keeps
clearly separate triangle pairs from the crossing test is checked against the exact triangle test.

Seeded kitbash-like scenes: L-brackets, U-channels and notched plates turned at random and pushed into each other,
and exact placements where faces touch, coincide or one part lies inside another.
"""

import coal
import numpy as np
import pytest

import core.mesh.contact.batch as batch_module
import core.mesh.contact.containment as containment_module
from core.mesh import MESH, Solid, collide_solids, measure_solid_pairs
from core.mesh.contact.containment import (share_interior, share_interior_moved, shares_interior_after,
                                          shares_interior_after_many)
from core.mesh.contact.pushout import BATCH_LEVELS, certified_pushout
from core.mesh.intersection import FLAT_PAIRS
from core.mesh.triangle_intersection import (apart_on_common_line, intersect_triangle_pairs, pair_heights,
                                             straddling)
from mesh_fixtures import coal_model, box, extrude, l_bracket, manifold_overlap, torus, transformed, uv_sphere

U_CHANNEL = [(0, 0), (1.0, 0), (1.0, 0.8), (0.8, 0.8), (0.8, 0.2), (0.2, 0.2), (0.2, 0.8), (0, 0.8)]
NOTCHED_PLATE = [(0, 0), (0.4, 0), (0.4, 0.1), (0.6, 0.1), (0.6, 0), (1.2, 0), (1.2, 0.3), (0, 0.3)]


def rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def part(kind: int, rng: np.random.Generator, offset) -> Solid:
    shape = (l_bracket(size=0.8, thickness=0.25, depth=0.6), extrude(U_CHANNEL, 0.0, 1.5),
             extrude(NOTCHED_PLATE, 0.0, 0.9))[kind % 3]
    centred = transformed(shape, offset=-shape.vertices.mean(axis=0))
    return Solid(transformed(centred, rotation(rng), offset))


def seeded_pairs(seed: int, count: int = 5) -> list[tuple[Solid, Solid]]:
    """Pairs of turned parts whose centres are a few tenths apart: most interpenetrate, some do not."""
    rng = np.random.default_rng(seed)
    return [(part(k, rng, (0.0, 0.0, 0.0)), part(k + 1 + seed, rng, rng.uniform(-0.4, 0.4, 3)))
            for k in range(count)]


def exact_placements() -> list[tuple[Solid, Solid]]:
    """Faces that touch (apart by exactly 0), coincide facing the same way, a part inside another, and one in a
    channel's open cavity, clear of its walls."""
    return [(Solid(box((0, 0, 0), (1, 1, 1))), Solid(box((1, 0.2, 0.2), (2, 0.8, 0.8)))),
            (Solid(box((0, 0, 0), (1, 1, 1))), Solid(box((0, 0, 0), (1, 1, 0.5)))),
            (Solid(box((0, 0, 0), (2, 2, 2))), Solid(box((0.5, 0.5, 0.5), (1, 1, 1)))),
            (Solid(extrude(U_CHANNEL, 0.0, 1.0)), Solid(box((0.3, 0.3, 0.2), (0.7, 0.9, 0.8))))]


def offsets_for(a: Solid, b: Solid, rng: np.random.Generator) -> np.ndarray:
    """Offsets along a few directions, from none to beyond the slab, with the axes' exact touching ones."""
    directions = np.vstack([np.eye(3), -np.eye(3), rng.normal(size=(3, 3))])
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    lengths = np.concatenate([[0.0], rng.uniform(0.0, 2.0, 3)])
    offsets = (lengths[:, None, None] * directions[None]).reshape(-1, 3)
    (low_a, high_a), (low_b, high_b) = a.bounds, b.bounds
    touching = np.diag(high_a - low_b)  # B's low faces moved onto A's high faces, axis by axis
    return np.vstack([offsets, touching, -np.diag(high_b - low_a)])


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("path", ["flat", "sweep"])
def test_batched_overlap_answers_as_the_per_offset_test(seed, path, monkeypatch):
    if path == "sweep":
        monkeypatch.setattr(containment_module, "FLAT_PAIRS", 0)
    rng = np.random.default_rng(100 + seed)
    pairs = seeded_pairs(seed) + (exact_placements() if seed == 0 else [])
    answers = []
    for a, b in pairs:
        offsets = offsets_for(a, b, rng)
        batched = shares_interior_after(a, b, offsets)
        one_by_one = [share_interior_moved(a, b, offset) for offset in offsets]
        assert batched.tolist() == one_by_one
        answers.extend(one_by_one)
    assert any(answers) and not all(answers)


@pytest.mark.parametrize("path", ["flat", "sweep", "some alone"])
def test_many_pairs_batched_together_answer_as_the_per_offset_test(path, monkeypatch):
    """Several pairs' offsets in one pass (either object the smaller, a pair without offsets, pairs whose candidates
    come from a sort and sweep, pairs with too many candidates tested offset by offset among batched ones): each
    offset's answer is the per-offset test's."""
    rng = np.random.default_rng(31)
    pairs = seeded_pairs(3, count=6) + exact_placements()
    requests = [(a, b, offsets_for(a, b, rng)[:: 1 + k % 3]) for k, (a, b) in enumerate(pairs)]
    requests.insert(2, (pairs[0][0], pairs[0][1], np.zeros((0, 3))))
    assert {len(a.mesh.triangles) < len(b.mesh.triangles) for a, b, _offsets in requests} == {False, True}
    alone = []
    if path == "sweep":
        monkeypatch.setattr(containment_module, "FLAT_PAIRS", 0)
    if path == "some alone":
        monkeypatch.setattr(containment_module, "BATCH_CANDIDATES", 1_500)
        monkeypatch.setattr(containment_module, "share_interior_moved",
                            lambda a, b, offset: alone.append((a, b)) or share_interior_moved(a, b, offset))
    answers = shares_interior_after_many(requests)
    assert [len(shared) for shared in answers] == [len(offsets) for _a, _b, offsets in requests]
    for (a, b, offsets), shared in zip(requests, answers):
        assert shared.tolist() == [share_interior_moved(a, b, offset) for offset in offsets]
    flat = np.concatenate(answers)
    assert flat.any() and not flat.all()
    if path == "some alone":
        asked = {(id(a), id(b)) for a, b in alone}
        assert 0 < len(asked) < len(requests) - 1


def test_exact_placements_overlap_as_built():
    """Touching faces and a part in a cavity do not share interior; coinciding faces facing the same way and a part
    inside do."""
    expected = [False, True, True, False]
    for (a, b), overlapping in zip(exact_placements(), expected):
        assert shares_interior_after(a, b, np.zeros((1, 3))).tolist() == [overlapping]


@pytest.mark.parametrize("path", ["flat", "sweep"])
def test_offset_rows_are_each_offsets_candidate_pairs_with_the_moved_meshes_numbers(path, monkeypatch):
    """The batch's rows (``_OffsetPairs.of_requests``) are, offset by offset, exactly the triangle pairs whose boxes
    (the moved mesh's own) meet once both are widened by the tolerance, each row holding the moved mesh's corners and
    area normals, A's first: faces apart by fractions of the tolerance too, either object the moved one, one and
    several offsets a pair; candidates screened all at once or by a sort and sweep."""
    rng = np.random.default_rng(7)
    mixed = seeded_pairs(6, count=2)  # (an L-bracket with a channel, a channel with a plate)
    pairs = seeded_pairs(5, count=3) + exact_placements() + mixed + [(b, a) for a, b in mixed]
    requests, just_apart, gaps = [], [], []
    for a, b in pairs:
        tolerance = 1e-9 * max(a.mesh.size, b.mesh.size)
        moves = offsets_for(a, b, rng)
        # the touching offsets (B's low faces onto A's high faces, its high faces onto A's low ones), moved on apart
        apart = np.concatenate([moves[-6:-3] + step * tolerance * np.eye(3) for step in (0.5, 1.5, 1.9, 2.5)]
                               + [moves[-3:] - step * tolerance * np.eye(3) for step in (0.5, 1.5, 1.9, 2.5)])
        just_apart.extend(np.concatenate([apart[3:9], apart[15:21]]).tolist())  # (found only by widened boxes)
        requests.append((a, b, np.vstack([moves, apart])))
        requests.extend((a, b, offset[None]) for offset in apart)
    pairs, offsets = [(a, b) for a, b, _moves in requests], [moves for _a, _b, moves in requests]
    assert {len(a.mesh.triangles) < len(b.mesh.triangles) for a, b in pairs} == {False, True}
    if path == "sweep":
        monkeypatch.setattr(containment_module, "FLAT_PAIRS", 0)
    rows, alone = containment_module._OffsetPairs.of_requests(pairs, offsets)
    assert not alone.any()
    starts = np.cumsum([0] + [len(moves) for moves in offsets])
    ids_a, ids_b = rows.ids(np.arange(len(rows.offset)))
    for index, ((a, b), moves) in enumerate(zip(pairs, offsets)):
        vertex_starts = set()
        for k, offset in enumerate(moves):
            moved_a = len(a.mesh.triangles) < len(b.mesh.triangles)
            mesh_a, mesh_b = (a.translated(-offset).mesh, b.mesh) if moved_a else (a.mesh, b.translated(offset).mesh)
            tolerance = 1e-9 * max(mesh_a.size, mesh_b.size)
            meet = ((mesh_a.lows[:, None] - tolerance <= mesh_b.highs[None] + tolerance)
                    & (mesh_b.lows[None] - tolerance <= mesh_a.highs[:, None] + tolerance)).all(axis=2)
            expected = {(first.tobytes(), second.tobytes()): (i, j) for i, j in np.argwhere(meet)
                        for first, second in [(mesh_a.corners[i], mesh_b.corners[j])]}
            mine = np.flatnonzero(rows.offset == starts[index] + k)
            assert rows.tolerance[starts[index] + k] == tolerance
            found = {(rows.corners_a[r].tobytes(), rows.corners_b[r].tobytes()): r for r in mine.tolist()}
            assert len(found) == len(mine) and found.keys() == expected.keys()
            gaps.append(len(mine) if offset.tolist() in just_apart else 0)
            for key, r in found.items():
                i, j = expected[key]
                assert rows.normals_a[r].tobytes() == mesh_a.area_normals[i].tobytes()
                assert rows.normals_b[r].tobytes() == mesh_b.area_normals[j].tobytes()
                vertex_starts.add((tuple(ids_a[r] - mesh_a.triangles[i]), tuple(ids_b[r] - mesh_b.triangles[j])))
        assert len({(first[0], second[0]) for first, second in vertex_starts}) <= 1  # each side's own vertex ids
        assert all(len(set(first)) == len(set(second)) == 1 for first, second in vertex_starts)
    assert sum(gaps) > 0


@pytest.mark.parametrize("seed", range(3))
def test_batched_search_finds_the_per_offset_search_push_out(seed):
    """Several bisection steps a batch give the same depth and normal as asking offset after offset."""
    found = 0
    for a, b in seeded_pairs(seed) + exact_placements()[1:]:
        if not share_interior(a, b):
            continue
        candidates = [(np.array([0.6, 0.0, 0.8]), 0.3)]

        def one_by_one(offsets):
            return np.array([not share_interior_moved(a, b, offset) for offset in offsets])

        sequential = certified_pushout(a, b, candidates, one_by_one, 0.0, 1e-9, levels=1)
        batched = certified_pushout(a, b, candidates, lambda offsets: ~shares_interior_after(a, b, offsets), 0.0,
                                    1e-9, levels=BATCH_LEVELS)
        assert batched[0] == sequential[0]
        np.testing.assert_array_equal(batched[1], sequential[1])
        found += 1
    assert found >= 3


@pytest.mark.parametrize("seed", range(3))
def test_push_outs_certified_by_manifold_and_clashes_found_by_coal(seed):
    """Every pair coal finds colliding is touching or penetrating, and a penetrating pair moved by its push-out (and a
    hair) shares no volume by manifold3d's exact boolean, whose overlap volume the pair's matches."""
    penetrating = 0
    for a, b in seeded_pairs(seed):
        contact = collide_solids(a, b)
        colliding = coal.collide(coal_model(a.mesh), coal.Transform3s(), coal_model(b.mesh), coal.Transform3s(),
                                 coal.CollisionRequest(), coal.CollisionResult())
        assert colliding == (contact.status != "separated")
        if contact.status != "penetrating":
            continue
        penetrating += 1
        volume, _centroid = manifold_overlap(a.mesh, b.mesh)
        assert contact.overlap_volume == pytest.approx(volume, rel=1e-9, abs=1e-12)
        moved = transformed(b.mesh, offset=(contact.depth + 1e-7) * contact.normal)
        assert manifold_overlap(a.mesh, moved)[0] <= 1e-9
        assert contact.depth_lower_bound <= contact.depth + 1e-9
    assert penetrating >= 3


def test_common_line_screen_drops_only_pairs_that_do_not_meet():
    """Random straddling triangle pairs, and pairs pushed until a corner of one just reaches the other: every pair the
    screen drops has no crossing by the exact triangle test, and it drops most of those without one."""
    rng = np.random.default_rng(7)
    a = rng.uniform(-1.0, 1.0, (20_000, 3, 3))
    b = rng.uniform(-1.0, 1.0, (20_000, 3, 3))
    # a corner of B moved onto A's face (inside it, or just outside its edge), the rest of B through A's plane
    weights = rng.dirichlet(np.ones(3), 2_000) * rng.choice([1.0, 1.0 + 1e-9], (2_000, 1))
    b[:2_000] += (np.einsum("ki,kij->kj", weights, a[:2_000]) - b[:2_000, 0])[:, None]
    normals_a = np.cross(a[:, 1] - a[:, 0], a[:, 2] - a[:, 0])
    normals_b = np.cross(b[:, 1] - b[:, 0], b[:, 2] - b[:, 0])
    heights = pair_heights(a, normals_a, b, normals_b)
    tolerance, size = np.full(len(a), 1e-9 * 2.0), np.full(len(a), 2.0)
    straddle = straddling(*heights, tolerance)
    apart = np.zeros(len(a), dtype=bool)
    apart[straddle] = apart_on_common_line(a[straddle], normals_a[straddle], heights[0][straddle], b[straddle],
                                           normals_b[straddle], heights[1][straddle], tolerance[straddle],
                                           size[straddle])
    crossing = intersect_triangle_pairs(a, b).crossing
    assert not (apart & crossing).any()
    assert apart.sum() > 0.8 * (straddle & ~crossing).sum()


def test_pairs_measured_in_lockstep_answer_as_each_alone():
    """A clash check's mesh pairs, their push-out searches asking the exact test together, get the very answers each
    pair gets measured alone (convex pairs, measured by the batch's own methods, left out)."""
    pairs = [(a, b) for a, b in seeded_pairs(11) + seeded_pairs(12) + exact_placements()
             if MESH in (a.method, b.method)]
    together = measure_solid_pairs(pairs)[1]
    penetrating = 0
    for (a, b), contact in zip(pairs, together):
        alone = collide_solids(a, b)
        assert (contact.status, contact.signed_distance, contact.overlap_volume) == (
            alone.status, alone.signed_distance, alone.overlap_volume)
        for field in ("normal", "point_a", "point_b"):
            np.testing.assert_array_equal(getattr(contact, field), getattr(alone, field))
        penetrating += contact.status == "penetrating"
    assert len(pairs) >= 10 and penetrating >= 5


@pytest.mark.parametrize("most_pairs, most_triangles", [(3, 10_000), (1_000, 200)])
def test_lockstep_chunks_keep_order_and_both_limits_and_give_the_same_answers(most_pairs, most_triangles,
                                                                             monkeypatch):
    """Mesh pairs go through the lockstep in order, in chunks of at most ``LOCKSTEP_PAIRS`` pairs and
    ``LOCKSTEP_TRIANGLES`` triangles (a pair above that alone); the answers do not depend on the chunks."""
    monkeypatch.setattr(batch_module, "LOCKSTEP_PAIRS", most_pairs)
    monkeypatch.setattr(batch_module, "LOCKSTEP_TRIANGLES", most_triangles)
    counts = [120, 40, 260, 30, 30, 90, 10, 150]
    chunks = list(batch_module.lockstep_chunks(counts))
    assert [index for chunk in chunks for index in chunk] == list(range(len(counts)))
    for chunk, after in zip(chunks, chunks[1:] + [None]):
        assert len(chunk) <= most_pairs
        assert len(chunk) == 1 or sum(counts[k] for k in chunk) <= most_triangles
        if after is not None:  # the chunk ended only because the next pair would break a limit
            assert len(chunk) == most_pairs or sum(counts[k] for k in chunk + after[:1]) > most_triangles
    pairs = [(a, b) for a, b in seeded_pairs(11) + exact_placements() if MESH in (a.method, b.method)]
    assert len(list(batch_module.lockstep_chunks(
        [len(a.mesh.triangles) + len(b.mesh.triangles) for a, b in pairs]))) > 1
    chunked = measure_solid_pairs(pairs)[1]
    monkeypatch.setattr(batch_module, "LOCKSTEP_PAIRS", len(pairs))
    monkeypatch.setattr(batch_module, "LOCKSTEP_TRIANGLES", 1 << 40)
    for contact, whole in zip(chunked, measure_solid_pairs(pairs)[1]):
        assert (contact.status, contact.signed_distance, contact.overlap_volume) == (
            whole.status, whole.signed_distance, whole.overlap_volume)
        np.testing.assert_array_equal(contact.normal, whole.normal)


def test_larger_meshes_in_lockstep_answer_as_each_alone():
    """Tori against finer spheres (too many triangle pairs to screen flat: candidates from a sort and sweep) get the
    same answers measured together as alone."""
    rng = np.random.default_rng(5)
    pairs = [(Solid(transformed(torus(major=0.35, minor=0.12), rotation(rng))),
              Solid(transformed(uv_sphere(0.3, rings=12, segments=16 + 4 * k), offset=(0.45, 0.0, 0.05 * k))))
             for k in range(3)]
    assert all(len(a.mesh.triangles) * len(b.mesh.triangles) > FLAT_PAIRS for a, b in pairs)
    together = measure_solid_pairs(pairs)[1]
    for (a, b), contact in zip(pairs, together):
        alone = collide_solids(a, b)
        assert contact.status == alone.status == "penetrating"
        assert (contact.signed_distance, contact.overlap_volume) == (alone.signed_distance, alone.overlap_volume)
        np.testing.assert_array_equal(contact.normal, alone.normal)
