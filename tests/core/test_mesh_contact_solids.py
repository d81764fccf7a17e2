"""``core.mesh.collide_solids`` on everyday non-convex pairs, against independent references.

Distances come from coal's BVH mesh distance, volumes from manifold3d's exact boolean, and a push-out
is checked independently: after moving B by ``depth * normal`` (a hair further), manifold3d finds no
shared volume. Analytic answers where the construction gives one.
"""

import time
from types import SimpleNamespace

import numpy as np
import pytest

import core.mesh.contact.batch as batch_module
import core.mesh.contact.convex_pairs as convex_pairs_module
import core.mesh.contact.dispatch as dispatch_module
import core.mesh.contact.mesh_pairs as mesh_pairs_module
import core.mesh.contact.pushout as pushout_module
import core.mesh.drag.separated_pairs as separated_pairs_module
from core.mesh import Solid, collide_solid_pairs, collide_solids
from core.mesh.contact.result import answered_from_last
from mesh_fixtures import (block_with_hole, box, chain_link, coal_distance, coal_surface_distance, cup, joined,
                           l_bracket, manifold_overlap,
                           moved, rod, torus, transformed, uv_sphere, wall_with_door)

EXACT = 1e-9
X_TO_Z = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # a quarter turn about y
TILT = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])  # a quarter turn about x


def measure(a, b, **options):
    contact = collide_solids(Solid(a), Solid(b), **options)
    gap = contact.point_a - contact.point_b
    np.testing.assert_allclose(gap, -contact.signed_distance * contact.normal, atol=1e-9)
    assert np.linalg.norm(contact.normal) == pytest.approx(1.0, abs=1e-12)
    return contact


def assert_apart_like_coal(a, b, method="mesh"):
    contact = measure(a, b)
    assert (contact.status, contact.method) == ("separated", method)
    assert contact.distance == pytest.approx(coal_distance(a, b), abs=EXACT)
    assert contact.overlap_volume == 0.0
    return contact


def assert_certified(a, b, contact):
    """B moved by the push-out (and a hair more) shares no volume with A."""
    size = max(np.ptp(a.vertices, axis=0).max(), np.ptp(b.vertices, axis=0).max())
    moved = transformed(b, offset=(contact.depth + 1e-7 * size) * contact.normal)
    assert manifold_overlap(a, moved)[0] <= 1e-9 * size**3
    assert contact.depth_lower_bound <= contact.depth + EXACT


def test_bolt_in_a_clearance_hole_is_apart():
    assert_apart_like_coal(block_with_hole(radius=0.4), rod(radius=0.3, z0=-1.0, z1=2.0))


def test_rod_through_a_torus_is_apart():
    assert_apart_like_coal(torus(major=2.0, minor=0.5), rod(radius=0.5, z0=-2.0, z1=2.0))


def test_interlocked_chain_links_are_apart():
    first = chain_link()
    second = transformed(chain_link(), TILT, offset=(1.5, 0.0, 0.0))
    assert_apart_like_coal(first, second)


def test_ball_in_a_cup_is_apart_and_a_big_one_cuts_its_wall():
    vessel = cup(radius=1.0, height=1.5, wall=0.15)
    assert_apart_like_coal(vessel, transformed(uv_sphere(0.5), offset=(0.0, 0.0, 0.8)))
    ball = transformed(uv_sphere(0.95), offset=(0.0, 0.0, 0.9))
    contact = measure(vessel, ball)
    assert contact.status == "penetrating"
    assert contact.overlap_volume == pytest.approx(manifold_overlap(vessel, ball)[0], rel=1e-9)
    assert_certified(vessel, ball, contact)


def test_nested_boxes_penetrate_with_the_inner_volume():
    outer, inner = box((-1, -1, -1), (1, 1, 1)), box((-0.15, -0.05, -0.35), (0.35, 0.45, 0.15))
    contact = measure(inner, outer)
    assert (contact.status, contact.method) == ("penetrating", "convex")
    assert contact.overlap_volume == pytest.approx(0.125, rel=1e-12)
    assert contact.depth == pytest.approx(1.05, abs=EXACT)  # Inner's lowest y, -0.05, out past y = 1


def test_a_torus_wholly_inside_a_box_is_found():
    contact = measure(box((-4, -4, -4), (4, 4, 4)), torus())
    assert (contact.status, contact.method) == ("penetrating", "mesh")
    assert contact.overlap_volume == pytest.approx(manifold_overlap(box((-4, -4, -4), (4, 4, 4)), torus())[0],
                                                   rel=1e-9)


def test_walls_overlapping_end_to_end_on_coplanar_faces():
    first = wall_with_door()
    second = transformed(wall_with_door(), offset=(2.8, 0.0, 0.0))
    contact = measure(first, second)
    assert (contact.status, contact.method) == ("penetrating", "mesh")
    assert contact.overlap_volume == pytest.approx(0.2 * 0.2 * 3.0, rel=1e-9)
    assert contact.depth == pytest.approx(0.2, rel=1e-3)
    assert_certified(first, second, contact)


def test_walls_meeting_end_to_end_only_touch():
    contact = measure(wall_with_door(), transformed(wall_with_door(), offset=(3.0, 0.0, 0.0)))
    assert contact.status == "touching"
    assert contact.overlap_volume == 0.0


def test_block_in_an_l_brackets_inner_corner():
    bracket = l_bracket(size=2.0, thickness=1.0)
    assert measure(bracket, box((1.2, 1.2, 0.0), (1.8, 1.8, 1.0))).distance == pytest.approx(0.2, abs=EXACT)
    block = box((0.9, 1.2, 0.0), (1.5, 1.8, 1.0))  # 0.1 into the upright arm
    contact = measure(bracket, block)
    assert contact.status == "penetrating"
    assert contact.overlap_volume == pytest.approx(0.1 * 0.6 * 1.0, rel=1e-9)
    assert contact.depth == pytest.approx(0.1, rel=1e-3)
    assert_certified(bracket, block, contact)


def test_a_block_flush_with_the_brackets_foot_and_sunk_into_it_penetrates():
    """The block's footprint is the foot's top face and its corners lie on the bracket's surface: no surface
    crosses the other beyond the tolerance and no vertex is strictly inside, but its end and side faces
    share the foot's faces, facing the same way (within one patch that bends to the upright's face, which
    faces the block's)."""
    bracket = l_bracket(size=2.0, thickness=1.0)
    block = box((1.0, 0.9, 0.0), (2.0, 1.9, 1.0))  # 0.1 into the foot, against the upright
    contact = measure(bracket, block)
    assert contact.status == "penetrating"
    assert contact.overlap_volume == pytest.approx(manifold_overlap(bracket, block)[0], rel=1e-9)
    assert contact.overlap_volume == pytest.approx(0.1, rel=1e-9)
    assert contact.depth_lower_bound - EXACT <= 0.1 <= contact.depth + EXACT
    assert_certified(bracket, block, contact)


def test_loose_convex_parts_are_measured_part_by_part():
    pair = joined(box((-1.5, -0.5, -0.5), (-0.5, 0.5, 0.5)), box((0.5, -0.5, -0.5), (1.5, 0.5, 0.5)))
    ball = uv_sphere(0.4)
    contact = measure(pair, ball)
    assert (contact.status, contact.method) == ("separated", "parts")
    assert contact.distance == pytest.approx(coal_distance(pair, ball), abs=EXACT)
    fat = uv_sphere(0.6)
    contact = measure(pair, fat)
    assert (contact.status, contact.method) == ("penetrating", "parts")
    assert_certified(pair, fat, contact)


def test_hulls_on_request_answer_about_the_hull():
    ring, core = torus(major=2.0, minor=0.5), box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5))
    assert collide_solids(Solid(ring), Solid(core)).status == "separated"
    contact = collide_solids(Solid(ring, use_hull=True), Solid(core))
    assert (contact.status, contact.method, contact.overlap_volume) == ("penetrating", "hull", None)


def test_swapping_the_objects_mirrors_the_answer():
    first, second = torus(major=2.0, minor=0.5), rod(radius=0.5, z0=-2.0, z1=2.0)
    forward, backward = measure(first, second), measure(second, first)
    assert forward.signed_distance == pytest.approx(backward.signed_distance, abs=EXACT)
    np.testing.assert_allclose(forward.normal, -backward.normal, atol=1e-9)


def test_inside_out_parts_are_turned_over():
    outer, inner = box((-1, -1, -1), (1, 1, 1)), box((-0.15, -0.05, -0.35), (0.35, 0.45, 0.15))
    flipped = transformed(outer)
    flipped = type(flipped).from_arrays(flipped.vertices, flipped.triangles[:, ::-1])
    assert Solid(flipped).method == "convex"
    contact = measure(inner, flipped)
    assert contact.overlap_volume == pytest.approx(0.125, rel=1e-12)
    assert contact.depth == pytest.approx(1.05, abs=EXACT)


def assert_witnesses_on_surfaces(a, b, contact):
    """``point_a`` lies on A's surface and ``point_b`` on B's (coal's point-to-triangles distance), within the
    push-out's bisection bracket."""
    near = contact.depth * 2.0 ** -pushout_module.PUSHOUT_STEPS + EXACT
    assert coal_surface_distance(contact.point_a, a) <= near
    assert coal_surface_distance(contact.point_b, b) <= near


@pytest.mark.parametrize("shapes", [
    pytest.param(lambda: (box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)), torus(major=1.0, minor=0.3)), id="box-torus"),
    pytest.param(lambda: (l_bracket(size=2.0, thickness=1.0), box((0.9, 1.2, 0.0), (1.5, 1.8, 1.0))),
                 id="bracket-block"),
    pytest.param(lambda: (joined(box((-1.5, -0.5, -0.5), (-0.5, 0.5, 0.5)), box((0.5, -0.5, -0.5), (1.5, 0.5, 0.5))),
                          uv_sphere(0.6)), id="parts-ball"),
    pytest.param(lambda: (box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)), transformed(cup(), offset=(0.3, 0.2, 0.1))),
                 id="box-cup"),
])
def test_witness_points_of_a_non_convex_push_out_lie_on_their_objects(shapes):
    a, b = shapes()
    contact = measure(a, b)
    assert contact.status == "penetrating" and contact.method in {"mesh", "parts"}
    assert_witnesses_on_surfaces(a, b, contact)
    assert_certified(a, b, contact)


def test_face_contacts_put_the_witness_points_at_the_patch_centre():
    table, block = box((-2, -2, -1), (2, 2, 0)), box((0.5, 0.5, -0.1), (1.5, 1.0, 0.9))  # 0.1 deep
    contact = measure(table, block)
    assert (contact.status, contact.region.kind) == ("penetrating", "polygon")
    assert contact.region.area == pytest.approx(0.5, rel=1e-12)
    np.testing.assert_allclose(contact.point_a, (1.0, 0.75, 0.0), atol=1e-12)
    np.testing.assert_allclose(contact.point_b, (1.0, 0.75, -0.1), atol=1e-12)


def test_objects_whose_boxes_are_apart_are_measured_by_distance_alone(monkeypatch):
    """Boxes further apart than the crossing search's tolerance: no crossing to look for, the exact distance
    (against coal) is the answer; boxes that meet still get the search (here: faces touching)."""
    searched = []
    search = mesh_pairs_module.surface_crossings
    monkeypatch.setattr(mesh_pairs_module, "surface_crossings",
                        lambda pairs, *rest: searched.extend([1] * len(pairs)) or search(pairs, *rest))
    bracket = l_bracket()
    ring = transformed(torus(major=1.0, minor=0.3), offset=(4.0, 1.0, 0.5))
    assert_apart_like_coal(bracket, ring)
    assert searched == []
    block = box((2.0, 0.0, 0.0), (3.0, 1.0, 1.0))  # resting against the bracket's end face at x = 2
    contact = measure(bracket, block)
    assert contact.status == "touching" and searched == [1]


def test_an_overlapping_convex_pair_left_by_the_deadline_is_answered_from_its_last_answer_after_a_translation():
    """While the interface runs (``volumes=False``), a convex pair there is no time to solve, only translated since its
    last exact answer, is answered from what that answer proved: penetrating, its push-out carried along (checked:
    B moved by it no longer overlaps A) and a lower bound that holds the exact depth; its slot is kept for the next
    solve (``answered_from_last``). A turn, a move as long as the depth, or a complete update leave it None."""
    ball, other = Solid(uv_sphere()), Solid(transformed(uv_sphere(), offset=(1.5, 0.2, 0.0)))
    slots = [None]
    [first] = collide_solid_pairs([(ball, other)], warm=slots, volumes=False)
    assert first.status == "penetrating" and not answered_from_last(first)
    kept = slots[0]
    for move in ((0.0, 0.05, 0.0), (0.02, -0.03, 0.01), (-0.1, 0.0, 0.0)):
        moved = other.translated(move)
        [carried] = collide_solid_pairs([(ball, moved)], warm=slots, volumes=False, deadline=time.perf_counter() - 1.0)
        assert slots[0] is kept
        assert carried.status == "penetrating" and carried.method == "convex" and answered_from_last(carried)
        assert carried.volume_pending and carried.overlap_volume is None
        exact = collide_solids(ball, moved)
        assert carried.depth_lower_bound <= exact.depth <= carried.depth + 1e-12
        assert np.allclose(carried.point_a - carried.point_b, carried.depth * carried.normal, atol=1e-12)
        pushed = collide_solids(ball, moved.translated(carried.depth * carried.normal))
        assert pushed.signed_distance >= -pushed.tolerance
    turn, centre = np.eye(4), np.array([1.5, 0.2, 0.0])
    turn[:3, :3], turn[:3, 3] = TILT, centre - TILT @ centre  # a quarter turn about B's own centre: the same ball
    for changed in (other.transformed(turn), other.translated((0.0, 0.6, 0.0))):
        assert collide_solid_pairs([(ball, changed)], warm=slots, volumes=False,
                                   deadline=time.perf_counter() - 1.0) == [None]
    assert collide_solid_pairs([(ball, other.translated((0.0, 0.05, 0.0)))], warm=slots,
                               deadline=time.perf_counter() - 1.0) == [None]  # complete: it waits


@pytest.mark.parametrize("warm", [False, True])
def test_a_deadline_leaves_full_measurements_undone_and_the_rest_answered(warm):
    """``collide_solid_pairs(deadline=...)``: no pair is measured in full one by one, and no overlapping convex
    pair by EPA (cold, or from its warm start), once the deadline has passed: those come back None, their slots
    unchanged. Convex pairs the screen finds apart, small ones SAT answers together, and (with slots) a separated
    mesh pair its start answers are answered whatever the time."""
    pairs = [(Solid(box()), Solid(transformed(box(), offset=(0.5, 0.2, 0.1)))),
             (Solid(l_bracket()), Solid(transformed(box(), offset=(1.2, 0.2, 0.8)))),
             (Solid(cup()), Solid(transformed(box(low=(-0.2, -0.2, -0.2), high=(0.2, 0.2, 0.2)), offset=(3.0, 0, 0)))),
             (Solid(uv_sphere()), Solid(transformed(uv_sphere(), offset=(1.5, 0.2, 0.0)))),
             (Solid(uv_sphere()), Solid(transformed(uv_sphere(), offset=(3.0, 0.2, 0.0))))]
    slots = [None] * len(pairs) if warm else None
    complete = collide_solid_pairs(pairs, warm=slots)
    assert [contact.method for contact in complete] == ["convex", "mesh", "mesh", "convex", "convex"]
    assert [contact.status for contact in complete][3:] == ["penetrating", "separated"]
    before = None if slots is None else list(slots)
    late = collide_solid_pairs(pairs, warm=slots, deadline=time.perf_counter() - 1.0)
    answered = [0, 2, 4] if warm else [0, 4]
    assert [k for k, contact in enumerate(late) if contact is not None] == answered
    assert all(start is kept for start, kept in zip(before or (), slots or ()))
    assert [late[k].signed_distance for k in answered] == [complete[k].signed_distance for k in answered]
    on_time = collide_solid_pairs(pairs, deadline=time.perf_counter() + 3600.0)
    assert [contact.signed_distance for contact in on_time] == [contact.signed_distance for contact in complete]


def test_a_deadline_starts_no_pair_one_as_long_as_the_last_would_not_finish_before(monkeypatch):
    """Pairs measured one by one under a deadline: the first starts whenever it is before the deadline; the next only
    when one as long as the longest so far would still end before it, so that an update is late by one measurement
    at most, not by two. The core's clock is one that a measurement moves on by 0.2 s (the machine's load cannot
    change what the test sees)."""
    measure = dispatch_module.mesh_pair
    calls, clock = [], [0.0]

    def slow(a, b, options):
        calls.append(1)
        clock[0] += 0.2
        return measure(a, b, options)

    monkeypatch.setattr(dispatch_module, "mesh_pair", slow)
    for module in (batch_module, convex_pairs_module, separated_pairs_module):  # every module that reads it
        monkeypatch.setattr(module, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    pairs = [(Solid(l_bracket()), Solid(transformed(box(), offset=(1.2, 0.2, 0.8 + 0.01 * k)))) for k in range(3)]
    answers = collide_solid_pairs(pairs, deadline=clock[0] + 0.3)
    assert len(calls) == 1 and answers[0] is not None and answers[1:] == [None, None]
    calls.clear()
    answers = collide_solid_pairs(pairs, deadline=clock[0] + 0.55)
    assert len(calls) == 2 and None not in answers[:2] and answers[2] is None


def test_a_penetrating_pair_whose_renewal_fails_under_a_deadline_waits_for_a_full_measurement(monkeypatch):
    """A dragged penetrating mesh pair whose start cannot be renewed is measured in full, but under a deadline not in
    the same call: it waits (None) with its slot emptied, and its next turn measures it in full at once, without
    trying the renewal again."""
    ring = Solid(torus(major=0.6, minor=0.2))
    pin = Solid(transformed(box(low=(-0.1, -0.1, -1.0), high=(0.1, 0.1, 1.0)), offset=(0.6, 0.0, 0.0)))
    slots = [None]
    [first] = collide_solid_pairs([(ring, pin)], warm=slots, volumes=False)
    assert first.status == "penetrating" and slots[0] is not None
    renewals, full, measure = [], [], dispatch_module.mesh_pair
    monkeypatch.setattr(batch_module, "renewed_penetrating", lambda a, b, start: renewals.append(1))  # fails: None
    monkeypatch.setattr(dispatch_module, "mesh_pair", lambda a, b, options: full.append(1) or measure(a, b, options))
    dragged = [(moved(ring), moved(pin, (0.0, 0.0, 0.5)))]  # along the pin: further than its ball proves
    [answer] = collide_solid_pairs(dragged, warm=slots, volumes=False, deadline=time.perf_counter() + 60.0)
    assert answer is None and slots == [None] and renewals == [1] and not full
    [answer] = collide_solid_pairs(dragged, warm=slots, volumes=False, deadline=time.perf_counter() + 60.0)
    assert answer.status == "penetrating" and renewals == [1] and full == [1]
