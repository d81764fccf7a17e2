"""Penetrating mesh pairs answered again after a drag (``translated_contact``), as the live update asks while an
object moves (``collide_solid_pairs(volumes=False, warm=slots)``): the push-out carried along still separates
(manifold3d finds no shared volume), the lower bound's ball lies inside both objects (exact winding numbers and
distances), and anything but a translation short of the ball measures the pair in full."""

import numpy as np
import pytest

import core.mesh.contact.mesh_pairs as mesh_pairs_module
import core.mesh.drag.penetrating_pairs as penetrating_pairs
from core.mesh import Solid, collide_solid_pairs
from core.mesh.distance import nearest_on_surface
from core.mesh.inside import crossing_windings
from core.mesh.drag.translated_contact import TranslationStart
from mesh_fixtures import l_bracket, manifold_overlap, moved, torus, transformed, uv_sphere


@pytest.fixture
def full_measurements(monkeypatch) -> list:
    """The pairs measured in full on their triangles (``mesh_pair_steps``: alone, or with others in a clash check)."""
    measured = []
    original = mesh_pairs_module.mesh_pair_steps
    monkeypatch.setattr(mesh_pairs_module, "mesh_pair_steps",
                        lambda a, b, options: measured.append(b) or original(a, b, options))
    return measured


def test_dragged_pairs_carry_their_pushout_and_ball_along(full_measurements):
    bracket = Solid(l_bracket())  # an L of two 2 x 1 x 1 blocks
    ring = Solid(torus(major=0.8, minor=0.3))  # sunk into the bracket's corner
    pairs = [(moved(bracket), moved(ring, (0.6, 0.5, 0.5)))]
    slots = [None]
    [first] = collide_solid_pairs(pairs, warm=slots)
    assert first.status == "penetrating" and isinstance(slots[0], TranslationStart)
    start = slots[0]
    for step, (shift_a, shift_b) in enumerate([((0.0, 0.0, 0.0), (0.02, -0.01, 0.0)),
                                               ((0.01, 0.0, 0.0), (0.05, 0.03, -0.02)),
                                               ((-0.03, 0.02, 0.01), (0.0, 0.0, 0.0))]):
        a, b = moved(bracket, shift_a), moved(ring, np.add((0.6, 0.5, 0.5), shift_b))
        [answer] = collide_solid_pairs([(a, b)], volumes=False, warm=slots)
        assert len(full_measurements) == 1 and slots[0] is start  # answered from what the first answer proved
        assert answer.status == "penetrating" and answer.volume_pending and answer.overlap_volume is None
        relative = np.subtract(shift_b, shift_a)
        assert answer.depth_lower_bound == pytest.approx(2.0 * start.ball_radius - np.linalg.norm(relative), abs=1e-12)
        np.testing.assert_allclose(answer.depth * answer.normal, start.pushout - relative, atol=1e-12)
        np.testing.assert_allclose(answer.point_a - answer.point_b, answer.depth * answer.normal, atol=1e-12)
        # The push-out still separates: manifold3d finds no shared volume once B is moved by it (a hair further).
        pushed = transformed(b.mesh, offset=(answer.depth + 1e-7) * answer.normal)
        assert manifold_overlap(a.mesh, pushed)[0] <= 1e-9
        # The lower bound's ball (radius r - |d| / 2, between the ball's two moved copies) lies inside both.
        centre = start.ball_centre + 0.5 * (np.add(shift_a, shift_b))
        radius = 0.5 * answer.depth_lower_bound
        for solid in (a, b):
            assert crossing_windings(solid.mesh, centre[None])[0] == 1
            assert nearest_on_surface(solid.mesh, centre[None])[0][0] >= radius - 1e-12
        assert answer.depth_lower_bound > 0.0 and answer.depth >= answer.depth_lower_bound
    # Measured in full: a volume asked for, a turn, and a drag further than the ball allows.
    full = collide_solid_pairs([(moved(bracket), moved(ring, (0.6, 0.5, 0.5)))], warm=slots)[0]
    assert len(full_measurements) == 2 and full.overlap_volume > 0.0 and not full.volume_pending
    turn = np.array([[np.cos(0.05), -np.sin(0.05), 0.0], [np.sin(0.05), np.cos(0.05), 0.0], [0.0, 0.0, 1.0]])
    collide_solid_pairs([(moved(bracket), moved(ring, (0.6, 0.5, 0.5), turn))], volumes=False, warm=slots)
    assert len(full_measurements) == 3
    far = 2.0 * slots[0].ball_radius + 0.01
    beyond = collide_solid_pairs([(moved(bracket), moved(ring, (0.6 + far, 0.5, 0.5)))], volumes=False, warm=slots)[0]
    assert len(full_measurements) == 4 and not beyond.volume_pending


def test_open_penetrating_pairs_keep_no_start():
    whole = torus(major=0.8, minor=0.3)
    cut = Solid(type(whole).from_arrays(whole.vertices, whole.triangles[6:]))  # open: no inside, so no ball
    slots = [None]
    [answer] = collide_solid_pairs([(Solid(l_bracket()), moved(cut, (0.6, 0.5, 0.5)))], warm=slots)
    assert answer.method == "mesh" and answer.status == "penetrating" and slots[0] is None


@pytest.mark.parametrize("carried", [True, False], ids=["ball carried along", "ball searched for"])
def test_a_drag_past_the_ball_renews_the_start_without_a_full_measurement(full_measurements, monkeypatch, carried):
    """A ball sunk into the bracket's top face and dragged along it past what its ball proves, only translated,
    while the interface runs: a new ball inside both proves the overlap again and the shorter of the carried
    push-out and the hulls' bounds the depth, with no triangle test. The fresh full measurement's depth lies
    between the two bounds, and the push-out separates. The new ball is the old one carried along (its copy in
    the dragged ball here), found inside both without a search (``common_ball``); where none of its carried
    places is inside both, the search finds one."""
    searches = []
    original = penetrating_pairs.common_ball
    monkeypatch.setattr(penetrating_pairs, "common_ball", lambda *args: searches.append(args) or original(*args))
    if not carried:
        monkeypatch.setattr(penetrating_pairs, "carried_ball", lambda a, b, start: None)
    bracket = Solid(l_bracket())  # the L's top face is z = 1
    ball = Solid(uv_sphere(0.3, rings=16, segments=24))
    place = np.array([1.6, 0.5, 1.2])  # 0.1 deep
    slots = [None]
    collide_solid_pairs([(moved(bracket), moved(ball, place))], warm=slots)
    first = slots[0]
    assert isinstance(first, TranslationStart) and len(full_measurements) == 1
    renewed, renewals_searched = {}, 0  # each start by its id, kept alive so that no id is reused
    for step in range(1, 16):  # 0.06 at a time along the face: each ball serves only a step or so
        shifted = place - (0.06 * step, 0.0, 0.0)
        a, b = moved(bracket), moved(ball, shifted)
        before, searched = slots[0], len(searches)
        [answer] = collide_solid_pairs([(a, b)], volumes=False, warm=slots)
        renewed[id(slots[0])] = slots[0]
        renewals_searched += len(searches) - searched
        assert len(full_measurements) == 1 and answer.status == "penetrating" and answer.volume_pending
        fresh = collide_solid_pairs([(moved(bracket), moved(ball, shifted))])[0]
        full_measurements.pop()
        assert answer.depth_lower_bound - 1e-9 <= fresh.depth <= answer.depth + 1e-9
        if slots[0] is not before:  # renewed here: its bounds are within the ratio, its ball inside both
            assert answer.depth <= penetrating_pairs.RENEWED_DEPTH_RATIO * answer.depth_lower_bound
            for solid in (a, b):
                assert crossing_windings(solid.mesh, slots[0].ball_centre[None])[0] == 1
                assert nearest_on_surface(solid.mesh, slots[0].ball_centre[None])[0][0] >= slots[0].ball_radius
        pushed = transformed(b.mesh, offset=(answer.depth + 1e-7) * answer.normal)
        assert manifold_overlap(a.mesh, pushed)[0] <= 1e-9
    assert len(renewed) > 5  # renewed again and again, never measured in full
    assert renewals_searched == (0 if carried else len(renewed) - 1)
    # In complete updates (volumes asked for) the pair is measured in full.
    collide_solid_pairs([(moved(bracket), moved(ball, place))], warm=slots)
    assert len(full_measurements) == 2
