"""Separated mesh pairs measured again after a drag (``translated_distance``), as the live update asks while an
object moves (``collide_solid_pairs(warm=slots)``): the distance is coal's for the moved meshes and the closest
points lie on both surfaces, with no tree search; anything the start cannot prove (a turn, a long drag, the touch
band, a jump into the other object) is measured in full. Also the bounds it rests on: ``separating_axes`` after a
translation and ``near_triangle_pairs``' horizon, against brute force."""

import time

import numpy as np
import pytest

import core.mesh.contact.batch as batch_module
import core.mesh.contact.dispatch as dispatch_module
import core.mesh.contact.mesh_pairs as mesh_pairs_module
import core.mesh.distance as distance_module
from core.mesh import Solid, collide_solid_pairs
from core.mesh.contact.result import answered_from_last, pair_size
from core.mesh.drag import separated_pairs, translated_distance
from core.mesh.bvh import TriangleBVH
from core.mesh.distance import near_triangle_pairs, nearest_on_surface
from core.mesh.drag.translated_distance import SeparationStart
from core.mesh.triangle_distance import separating_axes, triangle_pair_distance, unit_normals
from mesh_fixtures import coal_distance, cup, l_bracket, moved, rotation_z, torus, uv_sphere


@pytest.fixture
def searches(monkeypatch) -> list:
    """The searches for a closest pair (``mesh_distance``'s down the trees, ``mesh_distances``' for small pairs
    measured in full) and full mesh measurements, as they happen."""
    seen = []
    search, measure = distance_module.close_leaf_pair_steps, dispatch_module.mesh_pair
    stacked = mesh_pairs_module.mesh_distances
    monkeypatch.setattr(distance_module, "close_leaf_pair_steps", lambda *args: seen.append("search") or search(*args))
    monkeypatch.setattr(mesh_pairs_module, "mesh_distances",
                        lambda pairs: (pairs and seen.append("search")) or stacked(pairs))
    monkeypatch.setattr(dispatch_module, "mesh_pair",
                        lambda a, b, options: seen.append("full") or measure(a, b, options))
    return seen


NUDGE = np.array([0.0, 0.0, 1e-4])  # across the closest direction in every scene below: measured in full


def on_surface(solid: Solid, point: np.ndarray) -> bool:
    return nearest_on_surface(solid.mesh, point[None])[0][0] <= 1e-12


def test_dragged_pairs_apart_keep_their_exact_distance(searches):
    ring = Solid(torus(major=0.25, minor=0.1))
    bracket = Solid(l_bracket())  # an L of two blocks in [0, 2] x [0, 2] x [0, 1]; the ring lies in its notch
    slots = [None]
    [first] = collide_solid_pairs([(moved(bracket), moved(ring, (1.5, 1.5, 0.5), rotation_z(0.3)))], warm=slots)
    assert first.status == "separated" and isinstance(slots[0], SeparationStart) and searches == ["full", "search"]
    assert len(slots[0].gaps) == 0  # first measured: no triangle pairs kept until the pair is seen moving slowly
    offset_a, offset_b = np.zeros(3), np.array([1.5, 1.5, 0.5]) + NUDGE
    [second] = collide_solid_pairs([(moved(bracket), moved(ring, offset_b, rotation_z(0.3)))], warm=slots)
    start = slots[0]
    # A slow move since, shorter than the distance: triangle pairs kept, no full measurement, no closest-pair search
    assert len(start.gaps) and searches == ["full", "search"]
    assert second.distance == start.distance == pytest.approx(
        coal_distance(moved(bracket).mesh, moved(ring, offset_b, rotation_z(0.3)).mesh), abs=1e-9)
    released = translated_distance.without_pairs(start)  # once the pair stops: only where it was and its answer
    assert len(released.gaps) == 0 and released.answered == 0 and released.distance == start.distance
    rng = np.random.default_rng(7)
    for step in range(12):
        offset_b = offset_b + rng.normal(scale=0.0005, size=3)
        if step % 3 == 2:
            offset_a = offset_a + rng.normal(scale=0.0003, size=3)
        a, b = moved(bracket, offset_a), moved(ring, offset_b, rotation_z(0.3))
        searches.clear()
        [answer] = collide_solid_pairs([(a, b)], warm=slots)
        assert not searches and slots[0] is start  # no tree search: answered from the start
        assert answer.status == "separated" and answer.method == "mesh" and answer.overlap_volume == 0.0
        assert answer.distance == pytest.approx(coal_distance(a.mesh, b.mesh), abs=1e-9)
        fresh = collide_solid_pairs([(moved(bracket, offset_a), moved(ring, offset_b, rotation_z(0.3)))])[0]
        assert answer.distance == pytest.approx(fresh.distance, abs=1e-12)
        assert on_surface(a, answer.point_a) and on_surface(b, answer.point_b)
        np.testing.assert_allclose(answer.point_b - answer.point_a, answer.distance * answer.normal, atol=1e-12)
        # The answer's closest points, kept where the start has the objects, bound the next distance.
        relative = offset_b - offset_a - (np.array([1.5, 1.5, 0.5]) + NUDGE)
        assert np.linalg.norm(start.witness_b - start.witness_a + relative) == pytest.approx(answer.distance, abs=1e-12)


def test_what_the_start_cannot_prove_is_measured_in_full(searches):
    ball = Solid(uv_sphere(0.3, rings=10, segments=14))
    mug = Solid(cup())  # radius 1, height 1.5, walls 0.15: the ball hangs beside it
    slots = [None]
    place = np.array([1.5, 0.0, 0.75])
    collide_solid_pairs([(moved(mug), moved(ball, place - NUDGE))], warm=slots)
    collide_solid_pairs([(moved(mug), moved(ball, place))], warm=slots)  # a slow move: triangle pairs kept
    start = slots[0]
    assert isinstance(start, SeparationStart) and len(start.gaps) and searches.count("full") == 1

    def answer(offset, linear=np.eye(3)):
        return collide_solid_pairs([(moved(mug), moved(ball, place + offset, linear))], warm=slots)[0]

    assert answer((0.001, 0.0, 0.0)).status == "separated" and searches.count("full") == 1
    turned = answer((0.0, 0.0, 0.0), rotation_z(0.2))  # a turn: measured in full, a new start
    assert searches.count("full") == 2 and slots[0] is not start
    start = slots[0]
    assert len(start.gaps) and start.answered == 0
    beyond = np.array([start.horizon, 0.0, 0.0])  # further than the kept triangle pairs reach, and the distance
    far = answer(beyond, rotation_z(0.2))
    assert searches.count("full") == 3 and far.distance > turned.distance + 0.9 * start.horizon
    # Outrun at its first move: too fast a drag for a start to serve; the next keeps no triangle pairs ...
    assert len(slots[0].gaps) == 0 and slots[0].horizon == far.distance
    searches.clear()
    slow = answer(beyond + (0.001, 0.0, 0.0), rotation_z(0.2))
    assert not searches and slow.distance == pytest.approx(far.distance + 0.001, abs=1e-6)
    assert len(slots[0].gaps)  # ... until the drag slows down (shorter than the distance: no full measurement)
    # Into the touch band: measured in full (its touching curves are found there).
    touching = answer(beyond - far.distance * far.normal, rotation_z(0.2))
    assert touching.status == "touching" and searches.count("full") == 1
    assert touching.distance == pytest.approx(0.0, abs=1e-12) and not isinstance(slots[0], SeparationStart)


@pytest.mark.parametrize("interface", [False, True])
def test_a_jump_into_the_other_object_is_measured_in_full(searches, interface):
    """Also while the interface runs (a deadline), where the time left renews separated pairs' starts ahead."""
    deadline = time.perf_counter() + 60.0 if interface else None
    bracket = Solid(l_bracket())  # its foot fills [0, 2] x [0, 1] x [0, 1]
    bead = Solid(uv_sphere(0.001, rings=8, segments=12))  # smaller than the reach of the kept triangle pairs
    slots = [None]
    collide_solid_pairs([(moved(bracket), moved(bead, (2.006, 0.5, 0.5) + NUDGE))], warm=slots)
    collide_solid_pairs([(moved(bracket), moved(bead, (2.006, 0.5, 0.5)))], warm=slots)
    start = slots[0]
    assert isinstance(start, SeparationStart) and start.distance == pytest.approx(0.005, abs=1e-12)
    # Jumped into the foot, within the kept pairs' reach: its surface is 0.001 from the bracket's, but the bead
    # lies within it. Only the straight move crossing the surface tells; it is measured in full.
    jump = 0.008
    assert jump < start.distance + 0.5 * (start.horizon - start.distance)
    [inside] = collide_solid_pairs([(moved(bracket), moved(bead, (2.006 - jump, 0.5, 0.5)))], warm=slots,
                                   deadline=deadline)
    assert inside.status == "penetrating" and searches.count("full") == 2


def test_many_pairs_at_once_are_the_pair_by_pair_answers():
    shapes = [Solid(torus(major=0.8, minor=0.3)), Solid(l_bracket()), Solid(cup())]
    places = [np.array([4.0 * k, 0.0, 0.0]) for k in range(3)]
    pairs = [(moved(shapes[k], places[k]), moved(shapes[(k + 1) % 3], places[k] + (0.0, 3.4, 0.3))) for k in range(3)]
    slots = [None] * 3
    collide_solid_pairs([(a, moved(shapes[(k + 1) % 3], places[k] + (0.0, 3.4, 0.3) - NUDGE))
                         for k, (a, _b) in enumerate(pairs)], warm=slots)
    collide_solid_pairs(pairs, warm=slots)  # a slow move: their triangle pairs kept
    assert all(isinstance(slot, SeparationStart) and len(slot.gaps) for slot in slots)
    rng = np.random.default_rng(3)
    steps = [rng.normal(scale=0.001, size=3) for _ in range(3)]
    dragged = [(a, moved(shapes[(k + 1) % 3], places[k] + (0.0, 3.4, 0.3) + steps[k]))
               for k, (a, _) in enumerate(pairs)]
    kept = list(slots)
    together = collide_solid_pairs(dragged, warm=slots)
    assert all(now is before for now, before in zip(slots, kept))  # all answered from their starts
    for (a, b), answer in zip(dragged, together):
        alone = collide_solid_pairs([(a, b)])[0]
        assert answer.distance == pytest.approx(alone.distance, abs=1e-12)


def test_separating_axes_bound_the_distance_after_any_translation():
    rng = np.random.default_rng(11)
    tri_a = rng.normal(size=(400, 3, 3))
    tri_b = rng.normal(size=(400, 3, 3)) + rng.normal(scale=2.0, size=(400, 1, 3))
    axes, gaps = separating_axes(tri_a, tri_b, unit_normals(tri_a), unit_normals(tri_b))
    np.testing.assert_allclose(np.linalg.norm(axes, axis=1), 1.0, atol=1e-12)
    for shift in rng.normal(scale=0.5, size=(5, 3)):
        exact = triangle_pair_distance(tri_a, tri_b + shift)[0]
        assert (gaps + axes @ shift <= exact + 1e-12).all()
    apart = gaps > 0.0
    assert apart.sum() > 100
    np.testing.assert_allclose(triangle_pair_distance(tri_a[apart], tri_b[apart], apart=True)[0],
                               triangle_pair_distance(tri_a[apart], tri_b[apart])[0], atol=0.0)


def test_near_triangle_pairs_hold_every_pair_within_the_horizon():
    a = torus(major=0.8, minor=0.3, major_segments=16, minor_segments=8)
    b = uv_sphere(0.4, rings=8, segments=10)
    b = type(b).from_arrays(b.vertices + (1.35, 0.0, 0.1), b.triangles)
    horizon = 0.3
    near = near_triangle_pairs(TriangleBVH.build(a), TriangleBVH.build(b), horizon)
    every_a, every_b = np.meshgrid(np.arange(len(a.triangles)), np.arange(len(b.triangles)), indexing="ij")
    exact = triangle_pair_distance(a.corners_of(every_a.ravel()), b.corners_of(every_b.ravel()))[0]
    within = set(np.flatnonzero(exact <= horizon).tolist())
    kept = set((near.triangles_a * len(b.triangles) + near.triangles_b).tolist())
    assert within and within <= kept
    np.testing.assert_array_less(near.gaps, exact[near.triangles_a * len(b.triangles) + near.triangles_b] + 1e-12)
    np.testing.assert_array_equal(near.corners_a, a.corners_of(near.triangles_a))
    np.testing.assert_array_equal(near.corners_b, b.corners_of(near.triangles_b))
    assert (np.diff(near.gaps) >= 0.0).all() and near.horizon == horizon


def test_near_triangle_pairs_are_the_same_screened_in_small_chunks(monkeypatch):
    """The box screen goes through the pairs a chunk at a time (to bound memory): the chunks' seams lose nothing."""
    a = torus(major=0.8, minor=0.3, major_segments=16, minor_segments=8)
    b = uv_sphere(0.4, rings=8, segments=10)
    b = type(b).from_arrays(b.vertices + (1.35, 0.0, 0.1), b.triangles)
    whole = near_triangle_pairs(TriangleBVH.build(a), TriangleBVH.build(b), 0.3)
    monkeypatch.setattr(distance_module, "STEP_PAIRS", 7)
    chunked = near_triangle_pairs(TriangleBVH.build(a), TriangleBVH.build(b), 0.3)
    assert len(whole.gaps) > 7
    for got, expected in zip(chunked, whole):
        np.testing.assert_array_equal(np.sort(np.ravel(got)), np.sort(np.ravel(expected)))


@pytest.mark.parametrize("limit", [1, 5, 23, 10 ** 6])
def test_near_triangle_pairs_up_to_a_limit_are_those_of_the_smallest_gaps(monkeypatch, limit):
    """With a ``limit``, the pairs of the smallest gaps only, in the same order of gaps, gathered from the chunks
    the screen went through (small ones here) without the others; every pair left out has a gap no smaller."""
    monkeypatch.setattr(distance_module, "STEP_PAIRS", 7)
    a = torus(major=0.8, minor=0.3, major_segments=16, minor_segments=8)
    b = uv_sphere(0.4, rings=8, segments=10)
    b = type(b).from_arrays(b.vertices + (1.35, 0.0, 0.1), b.triangles)
    trees = TriangleBVH.build(a), TriangleBVH.build(b)
    whole, limited = near_triangle_pairs(*trees, 0.3), near_triangle_pairs(*trees, 0.3, limit)
    assert len(limited.gaps) == min(limit, len(whole.gaps)) and len(whole.gaps) > 23
    np.testing.assert_array_equal(limited.gaps, whole.gaps[:len(limited.gaps)])
    pairs = {(i, j): k for k, (i, j) in enumerate(zip(whole.triangles_a.tolist(), whole.triangles_b.tolist()))}
    for k, (i, j) in enumerate(zip(limited.triangles_a.tolist(), limited.triangles_b.tolist())):
        row = pairs[i, j]
        assert whole.gaps[row] == limited.gaps[k]
        np.testing.assert_array_equal(whole.corners_a[row], limited.corners_a[k])
        np.testing.assert_array_equal(whole.corners_b[row], limited.corners_b[k])
        np.testing.assert_array_equal(whole.axes[row], limited.axes[k])


def test_a_start_keeps_at_most_its_budget_of_triangle_pairs(monkeypatch, searches):
    monkeypatch.setattr(translated_distance, "MAX_KEPT_PAIRS", 40)
    ring = Solid(torus(major=0.25, minor=0.1))
    bracket = Solid(l_bracket())
    slots = [None]
    collide_solid_pairs([(moved(bracket), moved(ring, (1.5, 1.5, 0.5) - NUDGE, rotation_z(0.3)))], warm=slots)
    collide_solid_pairs([(moved(bracket), moved(ring, (1.5, 1.5, 0.5), rotation_z(0.3)))], warm=slots)
    start = slots[0]
    assert len(start.gaps) == 40 and start.distance < start.horizon < start.distance + 0.02
    for step in (0.0005, 0.001, 0.05):  # the last one further than the shrunken horizon reaches
        a, b = moved(bracket), moved(ring, (1.5 + step, 1.5 - step, 0.5), rotation_z(0.3))
        [answer] = collide_solid_pairs([(a, b)], warm=slots)
        assert answer.distance == pytest.approx(coal_distance(a.mesh, b.mesh), abs=1e-9)
        assert len(slots[0].gaps) <= 40
    assert searches.count("full") == 1 and slots[0] is not start  # the long step: shorter than the distance


def test_too_few_kept_pairs_to_hold_the_closest_one_search_the_trees(monkeypatch, searches):
    """A start after a translation whose budget of triangle pairs ends short of the moved closest points' distance
    cannot prove the closest pair among them: the trees are searched within that distance, none kept."""
    monkeypatch.setattr(translated_distance, "MAX_KEPT_PAIRS", 1)
    ring, bracket = Solid(torus(major=0.25, minor=0.1)), Solid(l_bracket())
    slots = [None]
    collide_solid_pairs([(moved(bracket), moved(ring, (1.5, 1.5, 0.5) - NUDGE, rotation_z(0.3)))], warm=slots)
    assert searches == ["full", "search"]
    a, b = moved(bracket), moved(ring, (1.5, 1.5, 0.5), rotation_z(0.3))
    [answer] = collide_solid_pairs([(a, b)], warm=slots)
    assert searches == ["full", "search", "search"] and len(slots[0].gaps) == 0
    assert answer.distance == slots[0].distance == pytest.approx(coal_distance(a.mesh, b.mesh), abs=1e-9)


def ball_beside_mug(slots: list):
    """A ball 0.3 beside a mug (turned), measured into ``slots`` twice, the second time after a slow move (its start
    keeps triangle pairs): the function that places the pair with the ball at a given place, and where it is."""
    mug, ball = Solid(cup()), Solid(uv_sphere(0.3, rings=10, segments=14))

    def pair_at(place):
        return moved(mug), moved(ball, place, rotation_z(0.4))

    place = np.array([1.6, 0.0, 0.75])
    collide_solid_pairs([pair_at(place - NUDGE)], warm=slots)
    collide_solid_pairs([pair_at(place)], warm=slots)
    return pair_at, place


def test_a_long_drag_is_measured_from_each_start_without_a_full_measurement(searches):
    """A drag much longer than any start's reach, each update's step shorter than the distance: each start that runs
    out gives the next one (the pair stayed apart along the move), the distance always the full measurement's."""
    slots = [None]
    pair_at, place = ball_beside_mug(slots)
    assert len(slots[0].gaps) and searches.count("full") == 1
    for pace, steps in ((0.002, 40), (0.03, 8)):  # slow: starts keep triangle pairs; fast: they keep none
        starts, tree_searches = set(), 0
        for _ in range(steps):
            place = place + pace * np.array([0.6, 0.8, 0.0])
            searches.clear()
            [answer] = collide_solid_pairs([pair_at(place)], warm=slots)
            assert "full" not in searches
            tree_searches += searches.count("search")
            starts.add(id(slots[0]))
            [fresh] = collide_solid_pairs([pair_at(place)])
            assert answer.status == fresh.status == "separated"
            assert answer.distance == pytest.approx(fresh.distance, abs=1e-12)
            assert answer.distance == pytest.approx(coal_distance(*(solid.mesh for solid in pair_at(place))),
                                                    abs=1e-9)
        if pace == 0.002:
            assert len(starts) > 3 and tree_searches == 0 and len(slots[0].gaps)
        else:  # the first fast step may still keep triangle pairs (if the previous start had answered: a slow pace)
            assert tree_searches >= steps - 1 and len(slots[0].gaps) == 0


def test_a_jump_after_a_slow_drag_searches_the_trees_before_keeping_triangle_pairs(searches):
    """After a slow drag, a jump longer than the reach (a pair that waited while others were measured) leaves the
    moved closest points far from the closest ones: the distance is found by a tree search bounded by them, then the
    triangle pairs kept reach only the reach past it (not past that loose bound)."""
    mug, ball = Solid(cup()), Solid(uv_sphere(0.3, rings=10, segments=14))
    slots = [None]
    place = np.array([1.6, 0.0, 0.75])
    for step in range(3):  # slow: triangle pairs kept, answers given
        collide_solid_pairs([(moved(mug), moved(ball, place + (0.0, 0.001 * step, 0.0)))], warm=slots)
    assert slots[0].answered > 0
    reach = translated_distance.HORIZON_FRACTION * pair_size(moved(mug), moved(ball, place))
    searches.clear()
    a, b = moved(mug), moved(ball, place + (0.0, 0.25, 0.0))  # sideways along the mug, less than the distance
    [answer] = collide_solid_pairs([(a, b)], warm=slots)
    start = slots[0]
    assert searches == ["search"] and len(start.gaps)
    assert start.distance + reach <= start.horizon <= start.distance + reach + 1e-9
    assert answer.distance == start.distance == pytest.approx(coal_distance(a.mesh, b.mesh), abs=1e-9)


def test_measured_triangle_pairs_keep_their_closest_direction_as_a_tighter_axis(monkeypatch):
    """A kept pair measured once is then bounded along its closest direction too (its distance plus how far B has
    moved along it): in a drag across that direction fewer pairs need measuring than with the kept axes alone (a
    third fewer here; at 10k vertices, 11.5 -> 4.8 ms per update of 20 dragged pairs), and the distance stays the
    full measurement's."""
    measured = []
    measure = translated_distance.triangle_pair_distance
    monkeypatch.setattr(translated_distance, "triangle_pair_distance",
                        lambda a, b, **kw: measured.append(len(a)) or measure(a, b, **kw))
    ring = Solid(torus(major=0.8, minor=0.3, major_segments=48, minor_segments=24))
    ball = Solid(uv_sphere(0.3, rings=24, segments=32))
    place = np.array([1.45, 0.0, 0.0])  # beside the ring's outer side, 0.05 away

    def drag() -> list[int]:
        """Triangle pairs measured at each update of a drag along the ring's side (across the closest direction)."""
        slots = [None]
        collide_solid_pairs([(moved(ring), moved(ball, place - NUDGE))], warm=slots)
        collide_solid_pairs([(moved(ring), moved(ball, place))], warm=slots)
        start, counts = slots[0], []
        for step in range(1, 6):
            measured.clear()
            shifted = place + (0.0, 0.0005 * step, 0.0)
            [answer] = collide_solid_pairs([(moved(ring), moved(ball, shifted))], warm=slots)
            assert slots[0] is start
            counts.append(sum(measured))
            [fresh] = collide_solid_pairs([(moved(ring), moved(ball, shifted))])
            assert answer.distance == pytest.approx(fresh.distance, abs=1e-12)
        return counts

    tighter = drag()
    monkeypatch.setattr(translated_distance, "_remember_axes", lambda *args: None)
    kept_axes_only = drag()
    assert 0 < max(tighter) < 0.8 * min(kept_axes_only), (tighter, kept_axes_only)


def one_step_per_call(steps, deadline):
    """``core.steps.run_until`` as if every step took all the time an update has left: one step per call."""
    try:
        next(steps)
    except StopIteration as done:
        return True, done.value
    return False, None


def test_a_drag_renews_its_start_ahead_a_step_per_update_and_is_never_outrun(monkeypatch, searches):
    """While the interface runs (a ``deadline``), a start the drag has spent more than ``RENEW_AHEAD`` of is renewed
    a step at a time in the time updates have left, the pair answered from it meanwhile: a long slow drag needs no
    renewal at once, never waits, and every answer is the full measurement's."""
    slots = [None]
    pair_at, place = ball_beside_mug(slots)
    monkeypatch.setattr(separated_pairs, "run_until", one_step_per_call)
    begun = []
    renewal_steps = separated_pairs.renewal_steps
    monkeypatch.setattr(separated_pairs, "renewal_steps", lambda *args: begun.append(1) or renewal_steps(*args))
    at_once = []
    monkeypatch.setattr(batch_module, "start_after_translation", lambda *args: at_once.append(1))
    starts, renewing = {id(slots[0])}, 0
    for update in range(130):  # 0.3 mm along the mug per update: a renewal's dozen steps end before it runs out
        place = place + (0.0, 0.0003, 0.0)
        searches.clear()
        [answer] = collide_solid_pairs([pair_at(place)], warm=slots, deadline=time.perf_counter() + 60.0)
        assert answer is not None and answer.status == "separated"
        assert not searches and not at_once  # neither a full measurement nor a renewal at once
        if update % 4 == 0:
            [fresh] = collide_solid_pairs([pair_at(place)])
            assert answer.distance == pytest.approx(fresh.distance, abs=1e-12)
        slot = slots[0]
        renewing += isinstance(slot, translated_distance.Renewal)
        starts.add(id(slot.base if isinstance(slot, translated_distance.Renewal) else slot))
    assert len(begun) >= 3 and len(starts) >= 3 and renewing >= 10


def test_a_fast_drag_renews_nothing_ahead(searches):
    """Starts made at a fast pace keep no triangle pairs: there is nothing to renew ahead, and each update searches
    the trees once (``mesh_distance`` bounded by the moved closest points), with or without time left."""
    mug, ball = Solid(cup()), Solid(uv_sphere(0.3, rings=10, segments=14))
    slots = [None]
    place = np.array([1.6, 0.0, 0.75])
    for step in range(8):
        place = place + (0.0, 0.03, 0.0)
        searches.clear()
        [answer] = collide_solid_pairs([(moved(mug), moved(ball, place))], warm=slots,
                                       deadline=time.perf_counter() + 60.0)
        assert isinstance(slots[0], SeparationStart) and not len(slots[0].gaps)
        assert searches == (["full", "search"] if step == 0 else ["search"])
        assert answer.distance == pytest.approx(coal_distance(moved(mug).mesh, moved(ball, place).mesh), abs=1e-9)


def test_a_fast_drag_spreads_its_tree_search_over_updates_short_of_time(monkeypatch, searches):
    """With time for one step per update, a pair dragged fast waits (None) while its tree search goes on, a level
    or a batch per update, none measured in full; once the search ends, the pair is answered exactly where it
    stands (coal's distance), and the next jump starts another search."""
    monkeypatch.setattr(separated_pairs, "run_until", one_step_per_call)
    mug, ball = Solid(cup()), Solid(uv_sphere(0.3, rings=10, segments=14))
    slots = [None]
    place = np.array([1.6, 0.0, 0.75])
    collide_solid_pairs([(moved(mug), moved(ball, place))], warm=slots, deadline=time.perf_counter() + 60.0)
    for _jump in range(2):
        place = place + (0.0, 0.03, 0.0)
        searches.clear()
        waited = 0
        while True:
            [answer] = collide_solid_pairs([(moved(mug), moved(ball, place))], warm=slots,
                                           deadline=time.perf_counter() + 60.0)
            if answer is not None:
                break
            waited += 1
            assert isinstance(slots[0], translated_distance.Renewal) and waited < 200
        assert waited >= 3 and searches == ["search"]  # one search, spread over the updates
        assert answer.distance == pytest.approx(coal_distance(moved(mug).mesh, moved(ball, place).mesh), abs=1e-9)
        assert isinstance(slots[0], SeparationStart)


def test_a_renewal_the_drag_outruns_goes_on_while_the_pair_waits(monkeypatch, searches):
    """A renewal begun ahead that has not ended when the drag outruns its start goes on at the next updates, a step
    at a time, the pair waiting meanwhile (None) rather than an update held for a whole renewal; once it ends, the
    pair is answered exactly where it is then. Without a deadline (background mode, the live update's settling) a
    renewal under way is run to its end."""
    time_left = [False]
    run_until = separated_pairs.run_until
    monkeypatch.setattr(separated_pairs, "run_until",
                        lambda steps, deadline: run_until(steps, deadline) if time_left[0] else (False, None))
    slots = [None]
    pair_at, place = ball_beside_mug(slots)
    start = slots[0]
    reach = start.horizon - start.distance
    sideways = np.array([0.0, 1.0, 0.0])  # along the mug: the distance grows slowly
    collide_solid_pairs([pair_at(place + 0.7 * reach * sideways)], warm=slots, deadline=time.perf_counter() + 60.0)
    renewal = slots[0]
    assert isinstance(renewal, translated_distance.Renewal) and renewal.base is start
    searches.clear()
    outrun = place + 1.5 * reach * sideways
    for _update in range(2):  # no time left: the pair waits, its renewal kept, and nothing is measured in full
        [answer] = collide_solid_pairs([pair_at(outrun)], warm=slots, deadline=time.perf_counter() + 60.0)
        assert answer is None and slots[0] is renewal and "full" not in searches
    time_left[0] = True
    [answer] = collide_solid_pairs([pair_at(outrun)], warm=slots, deadline=time.perf_counter() + 60.0)
    assert isinstance(slots[0], SeparationStart) and slots[0] is not start and "full" not in searches
    assert answer.distance == pytest.approx(coal_distance(*(solid.mesh for solid in pair_at(outrun))), abs=1e-9)
    # Renewing ahead again, then measured without a deadline: the renewal ends, and answers.
    time_left[0] = False
    renewed = slots[0]
    further = outrun + 0.7 * reach * sideways
    collide_solid_pairs([pair_at(further)], warm=slots, deadline=time.perf_counter() + 60.0)
    assert isinstance(slots[0], translated_distance.Renewal)
    searches.clear()
    [answer] = collide_solid_pairs([pair_at(further)], warm=slots)
    assert isinstance(slots[0], SeparationStart) and slots[0] is not renewed and not searches
    assert answer.distance == pytest.approx(coal_distance(*(solid.mesh for solid in pair_at(further))), abs=1e-9)


def test_a_pair_left_without_time_is_answered_from_its_last_exact_answer(monkeypatch):
    """While the interface runs (``volumes=False``) a separated pair that no time was left to measure is answered from
    its last exact answer when only moved since: separated, its distance at most the carried closest points' (both
    on the surfaces, ``point_b - point_a == distance * normal``) and at least the last distance less the move, or
    its convex hulls' distance when it moved further (then at most the distance of the surface points nearest the
    hulls' closest points), which holds coal's distance; pending for a measurement once it stops. A move that may
    have brought it into contact, a turn, or a complete update (background mode) gets no such answer."""
    monkeypatch.setattr(separated_pairs, "run_until", lambda steps, deadline: (False, None))  # never any time left
    slots = [None]
    pair_at, place = ball_beside_mug(slots)
    last = slots[0].distance
    rng = np.random.default_rng(3)
    for _update in range(6):
        place = place + rng.normal(scale=0.02, size=3)
        a, b = pair_at(place)
        [answer] = collide_solid_pairs([(a, b)], warm=slots, volumes=False, deadline=time.perf_counter() + 60.0)
        true = coal_distance(a.mesh, b.mesh)
        assert answer.status == "separated" and answer.distance_is_estimate and answer.volume_pending
        assert answer.distance_lower_bound <= true <= answer.distance + 1e-12
        assert answer.distance_lower_bound >= last - np.linalg.norm(place - np.array([1.6, 0.0, 0.75])) - 1e-9
        assert on_surface(a, answer.point_a) and on_surface(b, answer.point_b)
        assert answer.point_b - answer.point_a == pytest.approx(answer.distance * answer.normal, abs=1e-12)
        assert answered_from_last(answer)
    around = place + (0.0, 0.5, 0.0)  # further than the last distance allows: bounded by the hulls' distance
    a, b = pair_at(around)
    [answer] = collide_solid_pairs([(a, b)], warm=slots, volumes=False, deadline=time.perf_counter() + 60.0)
    true = coal_distance(a.mesh, b.mesh)
    assert answer.distance_is_estimate and answer.status == "separated"
    assert true - 1e-3 <= answer.distance_lower_bound <= true <= answer.distance + 1e-12
    # its start's probes, the surface points nearest the hulls' closest points, are the closest pair here (the last
    # closest points carried along are 0.6 apart)
    assert answer.distance == pytest.approx(true, abs=1e-3) and on_surface(a, answer.point_a)
    assert on_surface(b, answer.point_b)
    start = slots[0]
    into = place * (0.0, 1.0, 1.0) + (1.0, 0.0, 0.0)  # the ball now cuts the mug's wall: nothing proves it apart
    [answer] = collide_solid_pairs([pair_at(into)], warm=[start], volumes=False, deadline=time.perf_counter() + 60.0)
    assert coal_distance(*(solid.mesh for solid in pair_at(into))) == 0.0
    assert answer is None or not answer.distance_is_estimate
    turned = (pair_at(place)[0], moved(Solid(uv_sphere(0.3, rings=10, segments=14)), place, rotation_z(0.5)))
    [answer] = collide_solid_pairs([turned], warm=[start], volumes=False, deadline=time.perf_counter() + 60.0)
    assert answer is None or not answer.distance_is_estimate
    [answer] = collide_solid_pairs([pair_at(place)], warm=[start], deadline=time.perf_counter() + 60.0)
    assert answer is None or not answer.distance_is_estimate


def test_a_jump_longer_than_the_distance_with_the_hulls_apart_needs_no_full_measurement(searches):
    """A separated pair that jumped further than its distance since its start may have passed through the other
    object: without more it is measured in full. With a deadline (the live update), its convex hulls found apart
    prove neither object entered the other, so only its distance is searched for (a step at a time), exactly."""
    slots = [None]
    pair_at, place = ball_beside_mug(slots)
    jump = place + (0.0, 0.5, 0.0)  # along the mug, longer than the 0.3 distance: the hulls stay apart
    searches.clear()
    [answer] = collide_solid_pairs([pair_at(jump)], warm=slots, volumes=False, deadline=time.perf_counter() + 60.0)
    assert "full" not in searches and not answer.distance_is_estimate
    assert answer.distance == pytest.approx(coal_distance(*(solid.mesh for solid in pair_at(jump))), abs=1e-9)
    searches.clear()
    [answer] = collide_solid_pairs([pair_at(place)], warm=slots)  # without a deadline: measured in full
    assert searches[0] == "full"
