"""``collide_warm`` answers as ``collide`` does (and as the exact qhull reference), whatever its warm start:
over small moves, rotations, large jumps, touching and separating placements and degenerate shapes."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from scipy.spatial import ConvexHull

import core
from core.narrowphase import epa
import core.mesh.contact.convex_pairs as convex_pairs
import core.narrowphase.warm_epa as warm_module
from checks import BOUNDS_SLACK, VALUE_TOLERANCE, assert_conventions, assert_matches_reference
from core.narrowphase.batch import screen_many
from core.narrowphase.collide import solve_pair
from core.mesh import Solid, TriangleMesh, collide_solid_pairs
from core.mesh.drag.starts import ConvexStart
from core.shapes.convex import IDENTITY
from core.narrowphase.warm_epa import WarmStart, collide_warm, collide_warm_many, signed_distance_warm, signed_distances_warm
from generators import affine, box, cloud, random_rotation, rotation_about, sphere
from reference import reference_contact


def placed(points: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    return points @ matrix[:3, :3].T + matrix[:3, 3]


def run(body_a: np.ndarray, body_b: np.ndarray, matrices_b: list, keep_apart: bool = False, **options) -> list:
    """Walk B through ``matrices_b``, each query warm-started from the previous one (``collide_warm`` and,
    separately, ``signed_distance_warm``); every answer is checked against the qhull reference and against a
    cold ``collide``. Returns the contacts."""
    shape_a, shape_b = core.Polytope(body_a), core.Polytope(body_b)
    warm, warm_value, contacts = None, None, []
    for matrix in matrices_b:
        moved = shape_b.transformed(matrix)
        value, warm_value = signed_distance_warm(shape_a, moved, warm_value, **options)
        contact, warm = collide_warm(shape_a, moved, warm, keep_apart=keep_apart, **options)
        points_b = placed(body_b, matrix)
        reference = reference_contact(body_a, points_b)
        assert_matches_reference(contact, reference, body_a, points_b)
        cold = core.collide(shape_a, moved, **options)
        assert abs(contact.signed_distance - cold.signed_distance) <= VALUE_TOLERANCE * reference.size
        assert contact.status == cold.status
        if keep_apart:  # a GJK start when the answer is GJK's, else EPA's polytope
            assert warm is not None and warm.apart == (contact.epa_iterations == 0)
        else:
            assert (warm is None) == (contact.epa_iterations == 0)
        assert abs(value - reference.signed_distance) <= VALUE_TOLERANCE * reference.size
        assert (warm_value is None) == (warm is None or warm.apart)
        contacts.append(contact)
    return contacts


def translations(start, step, count: int, linear=np.eye(3)) -> list:
    return [affine(linear, np.asarray(start) + k * np.asarray(step)) for k in range(count)]


@pytest.mark.parametrize("seed", range(3))
def test_small_moves_continue_from_the_previous_polytope(seed):
    rng = np.random.default_rng(seed)
    body_a = sphere(200, 0.5) * rng.uniform(0.6, 1.0, 3)
    body_b = cloud(rng, 300)
    contacts = run(body_a, body_b, translations(rng.uniform(-0.2, 0.2, 3), rng.uniform(-0.004, 0.004, 3), 12))
    warm = [c for c in contacts[1:] if c.gjk_iterations == 0]
    assert len(warm) >= 8  # started warm (no GJK), and in a step or two where a cold start takes dozens
    assert max(c.epa_iterations for c in warm) < min(c.epa_iterations for c in contacts[:1])


def test_round_pair_moving_apart_through_touching_and_back():
    body = sphere(150, 0.5)
    # B's centre walks from 0.6 (0.4 deep) through 1.0 (touching) to 1.2 (apart) and back
    path = [affine(np.eye(3), (x, 0.01 * x, 0.0)) for x in np.concatenate([np.linspace(0.6, 1.2, 13),
                                                                           np.linspace(1.15, 0.6, 12)])]
    contacts = run(body, body, path)
    statuses = [c.status for c in contacts]
    assert statuses[0] == "penetrating" and "separated" in statuses and statuses[-1] == "penetrating"


@pytest.mark.parametrize("keep_apart", [False, True])
def test_round_pair_apart_keeps_its_last_simplex_when_asked(keep_apart):
    """``keep_apart``: a pair found apart leaves GJK's last simplex, its next query starts there (a step or two
    instead of a cold start's several) and answers as cold; through touching into overlap and back out."""
    body_a, body_b = sphere(150, 0.5), cloud(np.random.default_rng(4), 100)
    path = [affine(rotation_about((1, 1, 0), 0.001 * k), (x, 0.02 * x, 0.01)) for k, x in
            enumerate(np.concatenate([np.linspace(1.6, 1.55, 6), np.linspace(1.4, 0.5, 7), np.linspace(0.6, 1.6, 8)]))]
    contacts = run(body_a, body_b, path, keep_apart=keep_apart)
    statuses = [c.status for c in contacts]
    assert statuses[0] == statuses[-1] == "separated" and "penetrating" in statuses
    steps = [c.gjk_iterations for c in contacts[1:6]]  # apart, moved 1 cm at a time
    if keep_apart:
        assert max(steps) <= 2 < contacts[0].gjk_iterations
    else:
        assert min(steps) > 2
    shape_a, shape_b = core.Polytope(body_a), core.Polytope(body_b)
    _, warm = collide_warm(shape_a, shape_b.transformed(path[0]), keep_apart=True)
    assert warm.apart and collide_warm(shape_a, shape_b.transformed(path[0]), warm, keep_apart=True)[1] is warm


@pytest.mark.parametrize("seed", range(2))
def test_rotations(seed):
    rng = np.random.default_rng(10 + seed)
    body_a, body_b = cloud(rng, 80), sphere(120, 0.4) * [1.0, 0.5, 0.8]
    axis = rng.normal(size=3)
    run(body_a, body_b, [affine(rotation_about(axis, 0.03 * k), (0.1, 0.05, 0.0)) for k in range(15)])


def test_large_jumps_and_random_placements():
    rng = np.random.default_rng(7)
    body_a, body_b = cloud(rng, 60), cloud(rng, 60)
    run(body_a, body_b, [affine(random_rotation(rng), rng.uniform(-0.3, 0.3, 3)) for _ in range(12)])


def test_boxes_with_parallel_faces():
    """Ties everywhere: box faces parallel, supports along face normals not unique."""
    a, b = box((0.5, 0.4, 0.3)), box((0.3, 0.3, 0.3))
    run(a, b, translations((0.5, 0.1, 0.0), (0.01, 0.0, 0.002), 10))
    run(a, b, [affine(rotation_about((0, 0, 1), 0.02 * k), (0.45, 0.0, 0.1)) for k in range(8)])
    # into exact face contact (x = 0.8) and back in
    touching = run(a, b, [affine(np.eye(3), (x, 0.1, 0.0)) for x in (0.7, 0.75, 0.78, 0.8, 0.79, 0.7)])
    assert touching[3].status == "touching"


def test_thin_shapes_whose_polytopes_have_sliver_faces():
    """A slab 2e-5 thick against a flattened cloud: the warm polytope's sliver faces take ``_sliver_plane``."""
    rng = np.random.default_rng(2)
    run(box((0.5, 0.5, 1e-5)), cloud(rng, 40) * [1.0, 1.0, 0.01],
        [affine(rotation_about((1, 2, 3), 0.01 * k), (0.05, 0.02, 0.0)) for k in range(8)])


def test_signed_distance_read_off_the_warm_polytope():
    """A small move leaves the closest face on the boundary: the value comes without EPA, to the tolerance."""
    body = sphere(400, 0.5)
    shape = core.Polytope(body)
    _, warm = signed_distance_warm(shape, shape.translated((0.7, 0.0, 0.0)))
    for x in (0.7, 0.7 + 1e-7, 0.7 - 1e-7):
        value, kept = signed_distance_warm(shape, shape.translated((x, 0.0, 0.0)), warm, tolerance=1e-9)
        reference = reference_contact(body, body + [x, 0.0, 0.0])
        assert kept is warm and abs(value - reference.signed_distance) <= 1e-9


def test_many_pairs_at_once_with_warm_cold_and_stale_starts():
    """``signed_distances_warm`` over pairs whose warm starts are fresh, missing, another pair's, or from before
    the pair came apart: each value is the reference's."""
    rng = np.random.default_rng(21)
    bodies = [(cloud(rng, 60), sphere(80, 0.4)) for _ in range(5)]
    shapes = [(core.Polytope(a), core.Polytope(b)) for a, b in bodies]
    _, warms = signed_distances_warm([a for a, _ in shapes], [b for _, b in shapes], [None] * 5)
    offsets = [(0.01, 0.0, 0.0), (0.0, 0.02, 0.0), (3.0, 0.0, 0.0), (0.0, 0.0, 0.01), (0.02, 0.01, 0.0)]
    starts = [warms[0], None, warms[2], warms[0], warms[4]]  # pair 2 now apart, pair 3 given pair 0's start
    moved = [b.translated(offset) for (_, b), offset in zip(shapes, offsets)]
    values, kept = signed_distances_warm([a for a, _ in shapes], moved, starts, tolerance=1e-10)
    for (body_a, body_b), offset, value, start in zip(bodies, offsets, values, kept):
        reference = reference_contact(body_a, body_b + offset)
        assert abs(value - reference.signed_distance) <= VALUE_TOLERANCE * reference.size
        assert (start is None) == (reference.signed_distance > 0.0)
    assert kept[0] is warms[0]  # read off the moved warm polytope


def test_many_contacts_at_once_are_the_pair_by_pair_ones():
    """``collide_warm_many`` over warm, missing, foreign and stale starts: each contact and warm start is what
    ``collide_warm`` gives that pair alone, and each contact matches the reference."""
    rng = np.random.default_rng(22)
    bodies = [(cloud(rng, 60), sphere(80, 0.4)) for _ in range(5)]
    shapes = [(core.Polytope(a), core.Polytope(b)) for a, b in bodies]
    _, warms = collide_warm_many([a for a, _ in shapes], [b for _, b in shapes], [None] * 5)
    offsets = [(0.01, 0.0, 0.0), (0.0, 0.02, 0.0), (3.0, 0.0, 0.0), (0.0, 0.0, 0.01), (0.02, 0.01, 0.0)]
    starts = [warms[0], None, warms[2], warms[0], warms[4]]
    moved = [b.translated(offset) for (_, b), offset in zip(shapes, offsets)]
    contacts, kept = collide_warm_many([a for a, _ in shapes], moved, starts)
    for (a, _b), b, start, contact, start_kept, (body_a, body_b), offset in zip(shapes, moved, starts, contacts, kept,
                                                                                bodies, offsets):
        alone, alone_kept = collide_warm(a, b, start)
        for name in ("status", "signed_distance", "normal", "point_a", "point_b", "bounds", "epa_iterations"):
            assert np.array_equal(getattr(contact, name), getattr(alone, name)), name
        assert (start_kept is None) == (alone_kept is None)
        if start_kept is not None:
            assert np.array_equal(start_kept.triangles, alone_kept.triangles)
        assert_matches_reference(contact, reference_contact(body_a, body_b + offset), body_a, body_b + offset)
    assert contacts[0].gjk_iterations == 0 and contacts[4].gjk_iterations == 0  # resumed, not started cold
    assert kept[2] is None and contacts[2].status == "separated"


def test_identical_placement_gives_the_cold_answer_in_one_step():
    rng = np.random.default_rng(3)
    shape_a, shape_b = core.Polytope(cloud(rng, 100)), core.Polytope(cloud(rng, 100), affine(np.eye(3), (0.1, 0, 0)))
    cold = core.collide(shape_a, shape_b)
    first, warm = collide_warm(shape_a, shape_b)
    again, kept = collide_warm(shape_a, shape_b, warm)
    assert first.signed_distance == cold.signed_distance and first.epa_iterations == cold.epa_iterations
    assert again.gjk_iterations == 0 and again.epa_iterations == 1 and kept is warm
    assert abs(again.signed_distance - cold.signed_distance) <= cold.bounds[1] - cold.bounds[0] + 1e-15


def test_a_warm_start_from_other_shapes_is_safe():
    """A polytope of another pair (other vertex counts, or the same counts): the answer is still the cold one."""
    rng = np.random.default_rng(5)
    big_a, big_b = core.Polytope(cloud(rng, 200)), core.Polytope(cloud(rng, 200))
    _, foreign = collide_warm(big_a, big_b)
    body_a, body_b = cloud(rng, 30), cloud(rng, 30) + 0.05
    shape_a, shape_b = core.Polytope(body_a), core.Polytope(body_b)
    reference = reference_contact(body_a, body_b)
    for warm in (foreign, WarmStart(foreign.vertices_a % 30, foreign.vertices_b % 30, foreign.triangles,
                                    foreign.neighbours, (30, 30))):
        contact, _ = collide_warm(shape_a, shape_b, warm)
        assert_matches_reference(contact, reference, body_a, body_b)


def test_flat_and_apart_pairs_keep_no_warm_start():
    square = box((0.5, 0.5, 0.0))
    contact, warm = collide_warm(core.Polytope(square), core.Polytope(square + [0.2, 0.1, 0.0]))
    assert warm is None and contact.solver_status == "degenerate"
    contact, warm = collide_warm(core.Polytope(box((0.5, 0.5, 0.5))), core.Polytope(box((0.5, 0.5, 0.5)) + 2.0))
    assert warm is None and contact.status == "separated"


@pytest.mark.parametrize("scale", [1e-30, 1e35])
def test_far_scales(scale):
    """Pairs solved in a frame divided by a power of two: the warm supports are divided the same way."""
    rng = np.random.default_rng(11)
    body_a, body_b = cloud(rng, 50) * scale, cloud(rng, 50) * scale
    shape_a, shape_b = core.Polytope(body_a), core.Polytope(body_b)
    warm = None
    for k in range(6):
        offset = np.array([0.01 * k, 0.0, 0.0]) * scale
        contact, warm = collide_warm(shape_a, shape_b.translated(offset), warm)
        cold = core.collide(shape_a, shape_b.translated(offset))
        size = reference_contact(body_a, body_b + offset).size
        assert_conventions(contact, size)
        assert abs(contact.signed_distance - cold.signed_distance) <= VALUE_TOLERANCE * size
        slack = BOUNDS_SLACK * size
        assert contact.bounds[0] - slack <= cold.signed_distance <= contact.bounds[1] + slack
    assert contact.gjk_iterations == 0


def test_a_deadline_solves_the_pairs_in_order_until_it_passes(monkeypatch):
    """``collide_warm_many(deadline=...)``: pairs are solved in the order given while the clock is before the
    deadline (here a clock that ticks once per pair, past the first group placed together); those left are None
    with their warm starts returned as given, those solved are the answers without a deadline."""
    rng = np.random.default_rng(23)
    count = warm_module.PLACED_BEFORE_DEADLINE + 3
    shapes = [(core.Polytope(cloud(rng, 60)), core.Polytope(sphere(80, 0.4))) for _ in range(count)]
    shapes_a = [a for a, _ in shapes]
    _, warms = collide_warm_many(shapes_a, [b for _, b in shapes], [None] * count)
    moved = [b.translated((0.01 * k, 0.0, 0.005)) for k, (_, b) in enumerate(shapes)]
    complete, complete_kept = collide_warm_many(shapes_a, moved, warms)
    ticks = iter(range(1000))
    monkeypatch.setattr(warm_module, "time", SimpleNamespace(perf_counter=lambda: float(next(ticks))))
    solved = count - 2
    contacts, kept = collide_warm_many(shapes_a, moved, warms, deadline=float(solved))
    assert contacts[solved:] == [None, None]
    assert all(start is given for start, given in zip(kept[solved:], warms[solved:]))
    for contact, alone, start, alone_start in zip(contacts[:solved], complete, kept, complete_kept):
        assert np.array_equal(contact.normal, alone.normal) and contact.signed_distance == alone.signed_distance
        assert np.array_equal(start.triangles, alone_start.triangles)
    assert all(contact.status == "penetrating" for contact in contacts[:solved])
    late, late_kept = collide_warm_many(shapes_a, moved, warms, deadline=-1.0)
    assert late == [None] * count and all(start is given for start, given in zip(late_kept, warms))


def test_solid_pairs_measured_again_continue_from_their_slots(monkeypatch):
    """``collide_solid_pairs(warm=slots)``, as the live update calls it: overlapping convex pairs (here one of
    hulls too large for the batch's lockstep, one small) leave their polytopes in their slots and the next
    query after a small move resumes from them, with the cold answer's status and depth to the tolerance;
    apart pairs keep no polytope."""
    def ball(count: int, centre) -> Solid:
        points = sphere(count, 1.0)
        triangles = ConvexHull(points).simplices
        corners = points[triangles]
        inward = np.einsum("ij,ij->i", np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]),
                           corners[:, 0]) < 0.0  # qhull leaves its triangles wound either way
        triangles[inward] = triangles[inward][:, ::-1]
        return Solid(TriangleMesh.from_arrays(points + centre, triangles))

    pairs = [(ball(2000, (0.0, 0.0, 0.0)), ball(1500, (1.5, 0.0, 0.0))),
             (ball(200, (10.0, 0.0, 0.0)), ball(150, (11.2, 0.3, 0.0))),
             (ball(100, (20.0, 0.0, 0.0)), ball(100, (23.0, 0.0, 0.0)))]
    slots = [None] * len(pairs)
    first = collide_solid_pairs(pairs, warm=slots)
    assert {solid.method for pair in pairs for solid in pair} == {"convex"}
    assert [contact.status for contact in first] == ["penetrating", "penetrating", "separated"]
    assert all(isinstance(slot, ConvexStart) for slot in slots[:2]) and slots[2] is None
    assert isinstance(slots[0].polytope, WarmStart) and isinstance(slots[1].polytope, WarmStart)
    cold_starts, screened = [], []
    monkeypatch.setattr(warm_module, "solve_pair",
                        lambda pair, start=None: cold_starts.append(pair) or solve_pair(pair, start))
    monkeypatch.setattr(convex_pairs, "screen_many",
                        lambda a, b, **options: screened.append(len(a)) or screen_many(a, b, **options))
    step = np.eye(4)
    step[:3, 3] = (0.002, -0.001, 0.003)
    moved = [(a, b.transformed(step)) for a, b in pairs]
    again = collide_solid_pairs(moved, warm=slots)
    assert cold_starts == []  # both overlapping pairs resumed from their polytopes
    assert screened == [1]  # without GJK: only the pair with no warm start was screened
    for contact, cold in zip(again, collide_solid_pairs(moved)):
        assert contact.status == cold.status
        assert abs(contact.signed_distance - cold.signed_distance) <= 1e-9 * 3.0
    # The small pair pulled apart: its warm start no longer encloses the origin, it is solved cold and let go.
    apart = [moved[0], (moved[1][0], moved[1][1].translated((3.0, 0.0, 0.0))), moved[2]]
    statuses = [contact.status for contact in collide_solid_pairs(apart, warm=slots)]
    assert statuses == ["penetrating", "separated", "separated"] and len(cold_starts) == 1
    assert isinstance(slots[0], ConvexStart) and slots[1] is None and slots[2] is None


@pytest.mark.parametrize("seed", range(4))
def test_a_settled_warm_polytope_is_read_off_as_epa_would_answer(seed):
    """``epa.settled`` (no polytope built) gives exactly ``resume``'s answer whenever EPA's first support query
    converges, and None whenever it would grow: boxes with parallel faces, round and flat shapes. Many warm
    polytopes placed together find the same closest faces and facets (``settled_on``) as each alone."""
    rng = np.random.default_rng(seed)
    bodies = [(box([0.5, 0.4, 0.3]), box([0.3, 0.3, 0.3])), (sphere(300, 0.5), cloud(rng, 200)),
              (sphere(400, 0.5) * [1.0, 1.0, 0.05], sphere(100, 0.3))]
    pairs, warms = [], []
    for body_a, body_b in bodies:
        shape_a, shape_b = core.Polytope(body_a), core.Polytope(body_b)
        start = affine(random_rotation(rng), rng.uniform(-0.15, 0.15, 3))
        _contact, warm = collide_warm(shape_a, shape_b.transformed(start), None)
        for _ in range(6):
            step = rng.normal(scale=rng.choice([1e-4, 3e-3, 3e-2]), size=3)
            pairs.append(warm_module.PreparedPair(
                shape_a, shape_b.transformed(affine(start[:3, :3], start[:3, 3] + step)), None, None, None))
            warms.append(warm)
    read_off = grew = 0
    for pair, warm, placed_polytope in zip(pairs, warms, warm_module.placed_together(pairs, warms)):
        if placed_polytope is None:
            continue
        options = dict(tolerance=pair.local_solver_tolerance, rounding=pair.local_rounding)
        fast = epa.settled(placed_polytope, *map(np.array, (placed_polytope.normals, placed_polytope.distances,
                                                            placed_polytope.errors, placed_polytope.triangles)),
                           pair.support, **options)
        together = epa.settled_on(placed_polytope, placed_polytope.normals, placed_polytope.distances,
                                  placed_polytope.errors, placed_polytope.triangles, placed_polytope.closest,
                                  placed_polytope.facet, placed_polytope.certified, pair.support,
                                  tolerance=pair.local_solver_tolerance)
        alone = warm_module.placed_together([pair], [warm])[0]  # one pair: placed in plain floats
        assert [getattr(alone, name) for name in ("points", "side_a", "side_b", "triangles", "normals", "distances",
                                                  "errors", "closest", "facet", "certified")] == \
               [getattr(placed_polytope, name) for name in ("points", "side_a", "side_b", "triangles", "normals",
                                                            "distances", "errors", "closest", "facet", "certified")]
        polytope = warm_module.EpaPolytope.from_mesh(placed_polytope.vertices(), warm.triangles.tolist(),
                                                     warm.neighbours.tolist(), placed_polytope.planes())
        full = warm_module.resume(polytope, pair.support, max_iterations=pair.max_iterations, **options)
        assert (fast is None) == (together is None)
        if fast is None:
            grew += 1
            assert full.iterations > 1 or full.status != "converged"
        else:
            read_off += 1
            assert full.iterations == 1 and polytope.grown == 0
            for answer in (fast, together):
                assert (answer.signed_distance, answer.normal, answer.point_a, answer.point_b, answer.lower_bound,
                        answer.upper_bound, answer.iterations, answer.status) == \
                       (full.signed_distance, full.normal, full.point_a, full.point_b, full.lower_bound,
                        full.upper_bound, full.iterations, full.status)
    assert read_off >= 3 and grew >= 1


def supported(shape, index: int, shift: np.ndarray, inverse: float) -> list:
    """Where ``Shape.support`` (then ``gjk.minkowski_support``) puts vertex ``index`` of ``shape`` in a pair's frame
    shifted by ``shift`` and scaled by ``inverse``: their arithmetic, in Python floats."""
    moved = shape.translated(shift)
    linear, offset = moved.affine
    px, py, pz = moved.vertices()[index].tolist()
    tx, ty, tz = offset.tolist()
    if linear is IDENTITY:
        point = [px + tx, py + ty, pz + tz]
    else:
        (a, b, c), (e, f, g), (h, i, j) = linear.tolist()
        point = [a * px + b * py + c * pz + tx, e * px + f * py + g * pz + ty, h * px + i * py + j * pz + tz]
    return point if inverse == 1.0 else [coordinate * inverse for coordinate in point]


def test_warm_vertices_are_placed_where_the_support_function_puts_them():
    """``placed_points`` (every pair's warm vertices mapped at once) gives the floats the support function gives each
    vertex: unturned, turned and scaled shapes, in frames divided by a power of two."""
    rng = np.random.default_rng(9)
    shapes = [core.Polytope(cloud(rng, 50)).transformed(affine(np.eye(3), rng.normal(size=3))),
              core.Polytope(sphere(80, 0.4)).transformed(affine(random_rotation(rng) * 1.7, rng.normal(size=3))),
              core.Polytope(cloud(rng, 30)),
              core.Polytope(sphere(60, 0.2)).transformed(affine(random_rotation(rng), 1e3 * rng.normal(size=3)))]
    indices = [rng.integers(0, len(shape.vertices()), size=int(rng.integers(1, 20))) for shape in shapes]
    shifts, inverses = rng.normal(size=(len(shapes), 3)), np.array([1.0, 0.5, 2.0 ** -40, 1.0])
    together = warm_module.placed_points(shapes, indices, shifts, inverses)
    expected = [supported(shape, index, shift, inverse) for shape, rows, shift, inverse
                in zip(shapes, indices, shifts, inverses.tolist()) for index in rows.tolist()]
    assert together.tolist() == expected


def test_a_prepared_pair_solved_warm_again_answers_the_same_and_keeps_its_support():
    """``solve_warm`` logs the pair's support queries while it solves and gives the pair back as it was: solving the
    same prepared pair again answers the same (the logging does not pile up, one wrapper per call)."""
    from core.narrowphase.collide import PreparedPair
    rng = np.random.default_rng(7)
    shape_a, shape_b = core.Polytope(sphere(120, 0.5)), core.Polytope(cloud(rng, 90))
    pair = PreparedPair(shape_a, shape_b.transformed(affine(np.eye(3), (0.3, 0.1, 0.0))), 1e-12, 1e-9, None)
    support = pair.support
    answers = [warm_module.solve_warm(pair, None, None) for _ in range(3)]
    assert pair.support is support
    first = answers[0][0]
    for contact, warm in answers[1:]:
        assert contact.signed_distance == first.signed_distance and contact.status == first.status
        assert np.array_equal(contact.normal, first.normal)
        assert np.array_equal(warm.triangles, answers[0][1].triangles)
        assert np.array_equal(warm.vertices_a, answers[0][1].vertices_a)
