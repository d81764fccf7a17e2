"""``collide_overlapping`` (EPA grown in lockstep) gives ``collide``'s answers pair by pair, and the exact
reference's."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import core
import core.narrowphase.epa_lockstep as lockstep
from checks import assert_matches_reference
from core.narrowphase.collide import after_epa, solve_pair
from core.narrowphase.epa import seed_polytope
from core.narrowphase.epa_lockstep import collide_overlapping
from generators import affine, cloud, cylinder, random_rotation, sphere
from reference import reference_contact
from test_narrowphase_batch import GAPS, assert_same, random_pairs
from test_narrowphase_epa_arithmetic import contact_bits


def overlapping_hulls(seed: int, count: int) -> tuple[list, list]:
    """Rounded and faceted hulls of up to a few hundred points, B pushed into A by up to half its size; every
    third pair turned by its transform (supports through the shape's linear part)."""
    rng = np.random.default_rng(seed)
    makers = (lambda: sphere(int(rng.integers(30, 300)), 0.5) * rng.uniform(0.4, 1.3, 3),
              lambda: cloud(rng, int(rng.integers(8, 200))),
              lambda: cylinder(int(rng.integers(6, 40)), rng.uniform(0.2, 0.5), rng.uniform(0.2, 1.0)))
    shapes_a, shapes_b = [], []
    for k in range(count):
        points_a = makers[k % 3]() @ random_rotation(rng).T
        points_b = makers[(k // 3) % 3]() @ random_rotation(rng).T
        offset = rng.uniform(-5, 5, 3)
        shapes_a.append(core.Polytope(points_a + offset))
        direction = rng.normal(size=3)
        moved = offset + rng.uniform(0.0, 0.6) * direction / np.linalg.norm(direction)
        if k % 3 == 2:
            shapes_b.append(core.Polytope(points_b, transform=affine(random_rotation(rng), moved)))
        else:
            shapes_b.append(core.Polytope(points_b + moved))
    return shapes_a, shapes_b


def identical(x, y) -> bool:
    return (x.signed_distance == y.signed_distance and np.array_equal(x.normal, y.normal)
            and np.array_equal(x.point_a, y.point_a) and np.array_equal(x.point_b, y.point_b)
            and x.bounds == y.bounds and x.solver_status == y.solver_status
            and x.epa_iterations == y.epa_iterations)


@pytest.mark.parametrize("seed", range(3))
def test_equals_collide_on_overlapping_hulls(seed):
    shapes_a, shapes_b = overlapping_hulls(seed, 90)
    together = collide_overlapping(shapes_a, shapes_b)
    alone = [core.collide(a, b) for a, b in zip(shapes_a, shapes_b)]
    for contact, single, a, b in zip(together, alone, shapes_a, shapes_b):
        assert_same(contact, single, a, b)
    assert sum(c.status == "penetrating" for c in alone) >= 60
    assert max(c.epa_iterations for c in alone) > 20  # the arrays grow past their first room (32 faces)
    # The same support points and faces, grown step by step: bit for bit but for ties rounding breaks otherwise.
    assert sum(identical(x, y) for x, y in zip(together, alone)) >= 0.95 * len(alone)


@pytest.mark.parametrize("seed", range(2))
def test_matches_exact_reference(seed):
    rng = np.random.default_rng(80 + seed)
    points_a = [sphere(int(rng.integers(20, 120)), 0.5) @ random_rotation(rng).T for _ in range(20)]
    points_b = [cloud(rng, int(rng.integers(6, 80))) + rng.uniform(-0.4, 0.4, 3) for _ in range(20)]
    for contact, a, b in zip(collide_overlapping(points_a, points_b), points_a, points_b):
        assert_matches_reference(contact, reference_contact(a, b), a, b)


def test_pairs_of_every_kind_equal_collide():
    """Pairs apart, touching, barely overlapping; boxes, spheres (a margin) and clouds: those the lockstep does not
    take are ``collide``'s own, the others its answers."""
    shapes_a, shapes_b = random_pairs(4, 120, GAPS)
    for contact, a, b in zip(collide_overlapping(shapes_a, shapes_b), shapes_a, shapes_b):
        assert_same(contact, core.collide(a, b), a, b)


def test_pairs_too_large_or_too_small_to_solve_unscaled_and_iteration_caps():
    points = sphere(60, 0.5)
    shapes_a = [points * 1e40, points * 1e-40, points, points]
    shapes_b = [(points + 0.3) * 1e40, (points + 0.3) * 1e-40, points + 0.3, points + [0.2, 0.1, 0.0]]
    for cap in (None, 1, 3):
        together = collide_overlapping(shapes_a, shapes_b, max_iterations=cap)
        for contact, a, b in zip(together, shapes_a, shapes_b):
            single = core.collide(a, b, max_iterations=cap)
            assert identical(contact, single)
    assert {c.solver_status for c in collide_overlapping(shapes_a, shapes_b, max_iterations=1)} == {"iteration_limit"}


def test_no_pairs_and_no_pair_the_lockstep_takes():
    """No pairs at all, and only pairs ``collide`` solves alone (a margin, a shape of too many vertices)."""
    assert collide_overlapping([], []) == []
    points = sphere(60, 0.5)
    shapes_a = [core.Sphere((0.0, 0.0, 0.0), 0.5), sphere(2000, 0.5)]
    shapes_b = [points + 0.3, points + 0.3]
    for contact, a, b in zip(collide_overlapping(shapes_a, shapes_b), shapes_a, shapes_b):
        assert identical(contact, core.collide(a, b))


def test_pairs_still_growing_after_the_lockstep_steps_are_solved_by_collide(monkeypatch):
    shapes_a, shapes_b = overlapping_hulls(5, 30)
    monkeypatch.setattr(lockstep, "MAX_STEPS", 3)
    for contact, a, b in zip(collide_overlapping(shapes_a, shapes_b), shapes_a, shapes_b):
        assert identical(contact, core.collide(a, b))


def test_faces_seen_as_more_than_one_region_leave_the_pair_to_collide(monkeypatch):
    """A new point seen by faces that do not form one region (only rounding does that) has the pair solved
    by ``collide`` from the start: here every pair is made to look so."""
    shapes_a, shapes_b = overlapping_hulls(6, 12)
    original = lockstep._loops
    monkeypatch.setattr(lockstep, "_loops", lambda *args: (*original(*args)[:2], np.zeros(len(args[4]), dtype=bool)))
    for contact, a, b in zip(collide_overlapping(shapes_a, shapes_b), shapes_a, shapes_b):
        assert identical(contact, core.collide(a, b))


def test_horizon_loops():
    """``_loops`` on hand-made horizons: one loop, two loops, a vertex left twice, an open chain."""
    def check(edges, expected):
        pair = np.array([p for p, _s, _e in edges])
        start, end = np.array([s for _p, s, _e in edges]), np.array([e for _p, _s, e in edges])
        counts = np.bincount(pair, minlength=4)
        first = np.cumsum(counts) - counts
        following, preceding, loops = lockstep._loops(pair, start, end, first, counts, 10)
        assert loops.tolist() == expected
        good = np.flatnonzero(loops[pair])
        assert (end[good] == start[following[good]]).all() and (following[preceding[good]] == good).all()

    check([(0, 1, 2), (0, 2, 3), (0, 3, 1),  # a triangle
           (1, 1, 2), (1, 2, 1), (1, 3, 4), (1, 4, 3),  # two loops
           (2, 1, 2), (2, 2, 3), (2, 3, 1), (2, 1, 4), (2, 4, 1),  # vertex 1 left twice
           (3, 1, 2), (3, 2, 3), (3, 3, 4)], [True, False, False, False])  # open


def answer_bits(answer) -> tuple:
    """An ``EpaResult``'s fields, floats by their bits (signed zeros told apart)."""
    floats = (answer.signed_distance, *answer.normal, *answer.point_a, *answer.point_b, answer.lower_bound,
              answer.upper_bound)
    return tuple(float(x).hex() for x in floats) + (answer.iterations, answer.status)


def dyadic_boxes(seed: int, count: int) -> tuple[list, list]:
    """Axis-aligned boxes on a dyadic grid, moved by dyadic steps: coplanar faces, facets of several faces and
    exact ties; every other pair turned."""
    rng = np.random.default_rng(seed)
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    shapes_a, shapes_b = [], []
    for k in range(count):
        a, b = signs * rng.integers(1, 5, 3) / 4, signs * rng.integers(1, 5, 3) / 4 + rng.integers(-4, 5, 3) / 8
        turn = random_rotation(rng) if k % 2 else np.eye(3)
        shapes_a.append(a @ turn.T)
        shapes_b.append(b @ turn.T)
    return shapes_a, shapes_b


def checking_answers(monkeypatch, prepare=lambda lock: None) -> list:
    """Make every lockstep check its answers, all pairs' at once, against ``polytope_answer`` pair by pair
    (``answer_of``), after ``prepare(lock)``; returns the list of pairs answered, filled as it runs."""
    answered = []
    together = lockstep._Lockstep._answers

    def checked(lock):
        prepare(lock)
        answers = together(lock)
        facets, certified = lock.facets()
        for row, answer in enumerate(answers):
            if answer is not None:
                alone = lock.answer_of(row, np.flatnonzero(facets[row]), float(certified[row]))
                assert answer_bits(answer) == answer_bits(alone)
                answered.append(answer)
        return answers

    monkeypatch.setattr(lockstep._Lockstep, "_answers", checked)
    return answered


@pytest.mark.parametrize("scene", ["hulls", "boxes", "every kind"])
def test_answers_together_are_polytope_answer_pair_by_pair(monkeypatch, scene):
    answered = checking_answers(monkeypatch)
    shapes_a, shapes_b = {"hulls": lambda: overlapping_hulls(7, 60), "boxes": lambda: dyadic_boxes(0, 120),
                          "every kind": lambda: random_pairs(4, 120, GAPS)}[scene]()
    collide_overlapping(shapes_a, shapes_b)
    assert len(answered) >= 12


def test_pairs_whose_origin_lies_outside_their_facet_answer_alone(monkeypatch):
    """Every other polytope's faces moved behind the origin (their distances lowered): those pairs take
    ``polytope_answer``'s nearest point of the facet (a positive distance), the others the answers of all pairs at
    once (the depth), each in its own place."""
    def move_off_every_other(lock):
        lock.distance[::2] -= 10.0

    answered = checking_answers(monkeypatch, move_off_every_other)
    collide_overlapping(*overlapping_hulls(8, 40))
    assert sum(answer.signed_distance > 0.0 for answer in answered) >= 10
    assert sum(answer.signed_distance < 0.0 for answer in answered) >= 10


def test_seed_faces_are_seed_polytopes_faces():
    """All seeds' faces at once: ``seed_polytope``'s corners, neighbours and planes bit for bit, wound either way,
    and NaN planes exactly where it finds a face flat."""
    rng = np.random.default_rng(9)
    points = rng.uniform(-1.0, 1.0, (600, 4, 3))
    points[1::4] = rng.integers(-1, 2, (150, 4, 3)) / 4  # dyadic: flat faces, repeated corners
    points[2::4, 3] = points[2::4, 0] + 1e-9 * rng.normal(size=(150, 3))  # slivers
    points[3::4, :, 2] *= 1e-7  # thin
    seeds = [[(tuple(point), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)) for point in corners] for corners in points.tolist()]
    corners, across, normal, distance, error = lockstep._seed_faces(points)
    flat = 0
    for row, seed in enumerate(seeds):
        polytope = seed_polytope(seed)
        if polytope is None:
            assert np.isnan(distance[row]).any()
            flat += 1
            continue
        faces = [polytope.faces[face] for face in range(4)]
        assert corners[row].tolist() == [face[:3] for face in faces]
        assert across[row].tolist() == [face[6:9] for face in faces]
        expected = [(*face[3], face[4], face[5]) for face in faces]
        found = np.column_stack([normal[row], distance[row], error[row]]).tolist()
        assert [[x.hex() for x in face] for face in found] == [[float(x).hex() for x in face] for face in expected]
    assert 20 <= flat <= 150
    assert len({tuple(row) for row in corners[:, 0].tolist()}) == 2  # both windings


@pytest.mark.parametrize("scene", ["hulls", "every kind"])
def test_contacts_together_are_after_epa_pair_by_pair(monkeypatch, scene):
    """``after_epa`` and ``pair_contact`` of all pairs at once: each pair's ``after_epa`` bit for bit, including
    pairs left to ``collide`` and pairs whose EPA answer is made to miss its bounds (GJK's point answers)."""
    together, checked = lockstep._after_epa, []

    def compared(pairs, grown, found):
        found = [None if k % 7 == 3 else answer for k, answer in enumerate(found)]  # left to ``collide``
        for k in range(0, len(found), 5):  # EPA's value far off its bounds
            if found[k] is not None:
                found[k] = dataclasses.replace(found[k], signed_distance=found[k].signed_distance + 1.0)
        contacts = together(pairs, grown, found)
        for pair, (_k, result, seed), answer, contact in zip(pairs, grown, found, contacts):
            alone = solve_pair(pair)[0] if answer is None else after_epa(pair, result, seed, answer)[0]
            assert contact_bits(contact) == contact_bits(alone)
            checked.append(contact)
        return contacts

    monkeypatch.setattr(lockstep, "_after_epa", compared)
    shapes_a, shapes_b = {"hulls": lambda: overlapping_hulls(9, 60), "every kind": lambda: random_pairs(5, 120, GAPS)}[
        scene]()
    collide_overlapping(shapes_a, shapes_b)
    assert len(checked) >= 12


def grown_alone(lock, row: int) -> tuple:
    """The polytope ``EpaPolytope.grow`` grows from the lockstep's seed of pair ``row``, and ``grow``'s answer
    ``(min_support, tightest, iterations, status)``."""
    pair = lock.pairs[row]
    seed = [tuple(tuple(point) for point in vertex) for vertex in
            np.stack([lock.w[row, :4], lock.a[row, :4], lock.b[row, :4]], axis=1).tolist()]
    polytope = seed_polytope(seed)
    return polytope, polytope.grow(pair.support, pair.local_solver_tolerance, pair.max_iterations, pair.local_rounding)


def capturing_locksteps(monkeypatch, prepare=lambda lock: None) -> list:
    """Keep every lockstep (grown, after ``prepare(lock)``) and its answers: a list of ``(lock, answers)``."""
    kept, together = [], lockstep._Lockstep._answers

    def captured(lock):
        prepare(lock)
        answers = together(lock)
        kept.append((lock, answers))
        return answers

    monkeypatch.setattr(lockstep._Lockstep, "_answers", captured)
    return kept


def test_tightest_face_is_the_one_grow_keeps(monkeypatch):
    """The face whose normal gave the smallest support value, as ``EpaPolytope.grow`` returns it (corners, plane),
    on every pair grown to the same points alone, also where growing removed that face later (pairs stopped by
    their iteration cap before converging)."""
    kept = capturing_locksteps(monkeypatch)
    for cap in (None, 4, 9):
        collide_overlapping(*overlapping_hulls(10, 60), max_iterations=cap)
    compared = removed = 0
    for lock, _answers in kept:
        for row in range(len(lock.pairs)):
            polytope, (min_support, tightest, _iterations, _status) = grown_alone(lock, row)
            count = int(lock.vertex_count[row])
            if lock.w[row, :count].tolist() != [list(point) for point in polytope.points]:
                continue  # a rounding tie broken otherwise: grown to other points
            face = int(lock.tightest[row])
            found = [*lock.corners[row, face].tolist(), tuple(lock.normal[row, face].tolist()),
                     float(lock.tightest_distance[row]), float(lock.error[row, face])]
            assert found == tightest[:6] and float(lock.min_support[row]) == min_support
            compared += 1
            removed += bool(np.isinf(lock.distance[row, face]))
    assert compared >= 150 and removed >= 40


def test_a_facet_missing_its_bounds_answers_by_the_tightest_face_even_when_removed(monkeypatch):
    """Every other polytope's faces moved 10 beyond the origin's side (their distances raised): the closest facet
    then misses the certain bounds and ``polytope_answer`` answers by the tightest face, with the distance it had
    when its normal gave the smallest support value (``EpaPolytope`` keeps the face; the arrays lost it)."""
    def move_out_every_other(lock):
        lock.distance[::2] += 10.0

    kept = capturing_locksteps(monkeypatch, move_out_every_other)
    for cap in (None, 4):
        collide_overlapping(*overlapping_hulls(11, 40), max_iterations=cap)
    checked = removed = 0
    for lock, answers in kept:
        for row in range(0, len(lock.pairs), 2):
            polytope, (_min_support, tightest, _iterations, _status) = grown_alone(lock, row)
            count = int(lock.vertex_count[row])
            if answers[row] is None or lock.w[row, :count].tolist() != [list(p) for p in polytope.points]:
                continue
            assert answers[row].signed_distance == -tightest[4] and answers[row].normal == tightest[3]
            checked += 1
            removed += bool(np.isinf(lock.distance[row, lock.tightest[row]]))
    assert checked >= 10 and removed >= 5


@pytest.mark.parametrize("seed", range(2))
def test_dyadic_boxes_equal_collide(seed):
    """Boxes on a dyadic grid: GJK often meets the origin exactly on a face or edge, so a sixth of the seeds are grown
    from a smaller simplex (``expand_simplex``) rather than kept from GJK's tetrahedron; both kinds in place."""
    shapes_a, shapes_b = dyadic_boxes(seed, 120)
    together = collide_overlapping(shapes_a, shapes_b)
    alone = [core.collide(a, b) for a, b in zip(shapes_a, shapes_b)]
    for contact, single in zip(together, alone):  # (a tie of faces may give another normal of the same depth)
        assert contact.status == single.status
        assert abs(contact.signed_distance - single.signed_distance) <= single.tolerance
    assert sum(identical(x, y) for x, y in zip(together, alone)) >= 117
