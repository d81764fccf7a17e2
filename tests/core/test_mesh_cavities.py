"""Hollow objects: a part facing inward inside a part facing outward is a cavity (a shell made by Solidify, a hollow
casting), so the object's solid is its wall alone: what lies in the hollow is apart from it, and an overlap counts
only the wall. References: manifold3d's volumes of the meshes as given (it reads nested shells the same way) and
coal's surface distances."""

import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh import Solid, collide_solids
from core.mesh.volume import mesh_volume


def inward(shape):
    return fx.mesh(shape.vertices, shape.triangles[:, ::-1])


def shell(outer=1.0, inner=0.9):
    """A hollow ball: an outward sphere with an inward one inside it (what Solidify makes of a closed sphere)."""
    return fx.joined(fx.uv_sphere(outer, 16, 24), inward(fx.uv_sphere(inner, 16, 24)))


def ball(radius, centre=(0.0, 0.0, 0.0)):
    return fx.transformed(fx.uv_sphere(radius, 12, 16), offset=centre)


def assert_matches_references(hollow, other):
    a, b = Solid(hollow, name="hollow"), Solid(other, name="other")
    contact = collide_solids(a, b)
    overlap = fx.manifold_overlap(hollow, other)[0]
    if overlap > 0.0:
        assert contact.status == "penetrating"
        assert contact.overlap_volume == pytest.approx(overlap, rel=1e-9)
    else:
        assert contact.status == "separated" and contact.overlap_volume == 0.0
        assert contact.distance == pytest.approx(fx.coal_distance(hollow, other), rel=1e-9)
    return a, contact


@pytest.mark.parametrize("other", [ball(0.5), ball(0.2, (0.5, 0.1, 0.0)), ball(0.3, (0.9, 0.0, 0.0)),
                                   ball(0.3, (0.0, 0.2, -1.0)), fx.box((-0.2, -0.2, -2.0), (0.2, 0.2, 2.0))],
                         ids=["in the hollow", "off-centre in the hollow", "through the inner wall",
                              "through the outer wall", "a rod through both walls"])
def test_a_hollow_ball_is_its_wall_alone(other):
    hollow = shell()
    a, _contact = assert_matches_references(hollow, other)
    assert a.turned_parts == 0  # the inner wall is a cavity, not an inside-out part
    assert len(a.parts) == 1 and a.parts[0].closed  # the wall: one solid, its hollow inside it
    assert mesh_volume(a.mesh) == pytest.approx(fx.manifold(hollow).volume(), rel=1e-12)


def test_a_ball_resting_in_the_hollow_of_a_hollow_box_with_an_island():
    """A hollow box holding a solid island (three loose parts, one object): a ball between island and inner wall is
    apart from both; one across the island's face overlaps the island only."""
    hollow = fx.joined(fx.box((-1, -1, -1), (1, 1, 1)), inward(fx.box((-0.9, -0.9, -0.9), (0.9, 0.9, 0.9))),
                       fx.box((-0.2, -0.2, -0.2), (0.2, 0.2, 0.2)))
    for other in (ball(0.2, (0.55, 0.0, 0.0)), ball(0.2, (0.3, 0.0, 0.0))):
        a, _contact = assert_matches_references(hollow, other)
        assert a.turned_parts == 0 and len(a.parts) == 2


def test_an_inside_out_part_beside_another_is_still_turned_over():
    beside = fx.joined(fx.box((0, 0, 0), (1, 1, 1)), inward(fx.box((2, 0, 0), (3, 1, 1))))
    solid = Solid(beside)
    assert solid.turned_parts == 1 and len(solid.parts) == 2
    assert mesh_volume(solid.mesh) == pytest.approx(2.0, rel=1e-12)
    contact = collide_solids(solid, Solid(fx.box((2.5, 0.5, 0.5), (3.5, 1.5, 1.5))))
    assert contact.overlap_volume == pytest.approx(0.125, rel=1e-12)


def test_a_moved_and_mirrored_copy_keeps_its_hollow():
    hollow = shell()
    linear = np.diag([-1.0, 1.5, 1.0])  # mirrors: the copy's triangles are turned over to keep facing outward
    moved = fx.moved(Solid(hollow), (0.3, 0.0, 0.0), linear)
    inside = ball(0.4, (0.3, 0.0, 0.0))
    contact = collide_solids(moved, Solid(inside))
    reference = fx.transformed(hollow, linear, (0.3, 0.0, 0.0))
    assert contact.status == "separated"
    assert contact.distance == pytest.approx(fx.coal_distance(reference, inside), rel=1e-9)
