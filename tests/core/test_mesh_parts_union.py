"""Objects made of overlapping parts: their solid is the union of the parts, against manifold3d's booleans."""

import numpy as np
import pytest

import core.mesh.parts_union
import mesh_fixtures as fx
from core.mesh import Solid, collide_solids
from core.mesh.parts_union import convex_intersection, covered_twice, part_overlaps
from core.mesh.volume import mesh_volume


def union(*shapes):
    result = fx.manifold(shapes[0])
    for shape in shapes[1:]:
        result = result + fx.manifold(shape)
    return result


def tilted_box(low, high, angle, offset=(0.0, 0.0, 0.0)):
    return fx.transformed(fx.box(low, high), fx.rotation_z(angle), offset)


JOINED_CUBES = (fx.box((0, 0, 0), (1, 1, 1)), fx.box((0.5, 0.2, 0.2), (1.5, 0.8, 0.8)))
CASES = {
    "joined cubes against a box": (JOINED_CUBES, (fx.box((0.7, 0.1, 0.1), (1.2, 0.9, 0.9)),)),
    "joined cubes against a tilted box": (JOINED_CUBES, (tilted_box((-0.4, -0.3, 0.1), (0.4, 0.3, 0.9), 0.5,
                                                                   (1.0, 0.5, 0.0)),)),
    "joined cubes against a torus": (JOINED_CUBES, (fx.transformed(fx.torus(0.6, 0.2), offset=(0.75, 1.1, 0.5)),)),
    "joined cubes against an L-bracket": (JOINED_CUBES, (fx.transformed(fx.l_bracket(1.0, 0.4, 0.6),
                                                                        offset=(0.6, 0.1, 0.3)),)),
    "three boxes sharing a corner against a sphere": (
        (fx.box((0, 0, 0), (1, 1, 1)), fx.box((0.6, 0.3, 0.2), (1.6, 1.1, 1.2)),
         tilted_box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5), 0.4, (0.9, 0.9, 0.6))),
        (fx.transformed(fx.uv_sphere(0.5, 16, 24), offset=(0.9, 0.8, 0.7)),)),
    "overlapping parts on both sides": (
        (fx.uv_sphere(0.6, 12, 16), fx.transformed(fx.uv_sphere(0.6, 12, 16), offset=(0.7, 0, 0))),
        (fx.box((0.2, -1, -0.3), (0.5, 1, 0.3)), tilted_box((-0.3, -0.3, -0.3), (0.3, 0.3, 0.3), 0.7,
                                                             (0.4, 0.2, 0.1)))),
}


@pytest.mark.parametrize("name", CASES)
def test_overlap_volume_counts_shared_space_once(name):
    parts_a, parts_b = CASES[name]
    a, b = Solid(fx.joined(*parts_a)), Solid(fx.joined(*parts_b))
    expected = (union(*parts_a) ^ union(*parts_b)).volume()
    double_counted = sum((fx.manifold(p) ^ fx.manifold(q)).volume() for p in parts_a for q in parts_b)
    contact = collide_solids(a, b)
    assert expected > 0.0 and double_counted > expected * 1.05  # the parts do share space in the overlap
    assert contact.status == "penetrating"
    assert contact.overlap_volume == pytest.approx(expected, rel=1e-7, abs=1e-12)
    # the centroid too: manifold3d's of the boolean
    _, centroid = fx.manifold_overlap(fx.mesh(*_mesh_of(union(*parts_a))), fx.mesh(*_mesh_of(union(*parts_b))))
    np.testing.assert_allclose(contact.overlap_centroid, centroid, atol=1e-7)


def _mesh_of(manifold):
    out = manifold.to_mesh64()
    return np.asarray(out.vert_properties)[:, :3], np.asarray(out.tri_verts, dtype=np.int64)


def test_an_object_inside_the_space_two_parts_share_is_contained():
    a = Solid(fx.joined(*JOINED_CUBES))
    inner = fx.box((0.6, 0.4, 0.4), (0.8, 0.6, 0.6))  # inside both cubes: winding number 2
    contact = collide_solids(a, Solid(inner))
    assert contact.status == "penetrating"
    assert contact.overlap_volume == pytest.approx(0.2 * 0.2 * 0.2, rel=1e-9)


def test_push_out_leaves_the_union_of_the_parts():
    parts = JOINED_CUBES
    b_mesh = fx.box((1.3, 0.3, 0.3), (1.7, 0.7, 0.7))  # inside the second cube only, past the first
    contact = collide_solids(Solid(fx.joined(*parts)), Solid(b_mesh))
    assert contact.status == "penetrating"
    moved = fx.transformed(b_mesh, offset=contact.depth * contact.normal)
    assert (union(*parts) ^ fx.manifold(moved)).volume() <= 1e-9
    assert contact.depth == pytest.approx(0.2, abs=1e-6)  # out through the second cube's face x = 1.5


def test_volume_covered_twice_matches_manifold3d():
    cube = fx.box((0, 0, 0), (1, 1, 1))
    second = fx.box((0.5, 0.2, 0.2), (1.5, 0.8, 0.8))
    third = tilted_box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5), 0.4, (0.8, 0.6, 0.6))
    touching = fx.box((1, 0, 0), (2, 1, 1))
    for parts in ((cube, second), (cube, second, third), (cube, touching), (cube, fx.torus(0.6, 0.2))):
        overlaps = part_overlaps(parts, [True] * len(parts))
        m = [fx.manifold(p) for p in parts]
        pairwise = [(m[i] ^ m[j]) for i in range(len(m)) for j in range(i + 1, len(m))]
        expected = pairwise[0]
        for piece in pairwise[1:]:
            expected = expected + piece
        found = covered_twice(parts, [Solid(p).method == "convex" for p in parts], overlaps)
        assert found == pytest.approx(expected.volume(), rel=1e-7, abs=1e-12)
    assert part_overlaps((cube, touching), [True, True]) == []


def test_convex_intersection_is_manifold3ds():
    first = fx.transformed(fx.uv_sphere(1.0, 10, 14), offset=(0.5, 0, 0))
    second = tilted_box((-0.6, -0.6, -0.6), (0.6, 0.6, 0.6), 0.3)
    found = convex_intersection(first, second)
    assert mesh_volume(found) == pytest.approx((fx.manifold(first) ^ fx.manifold(second)).volume(), rel=1e-9)
    assert convex_intersection(fx.box((0, 0, 0), (1, 1, 1)), fx.box((1, 0, 0), (2, 1, 1))) is None


BRACKET = fx.transformed(fx.l_bracket(1.0, 0.4, 1.0), offset=(0.0, 0.0, 0.0))  # non-convex: an L in x, y
ONE_NON_CONVEX = {
    "L-bracket and a box it overlaps, against a box": (
        (BRACKET, fx.box((0.2, 0.1, 0.2), (0.9, 0.6, 0.8))), (fx.box((0.3, -0.2, 0.1), (0.7, 0.9, 0.7)),)),
    "torus and a box through its ring, against a tilted box": (
        (fx.torus(0.6, 0.2), fx.box((-0.7, -0.15, -0.15), (0.7, 0.15, 0.15))),
        (tilted_box((-0.3, -0.3, -0.3), (0.3, 0.3, 0.3), 0.6, (0.55, 0.1, 0.0)),)),
    "L-bracket and a box against an object of two overlapping boxes": (
        (BRACKET, fx.box((0.2, 0.1, 0.2), (0.9, 0.6, 0.8))),
        (fx.box((0.3, -0.2, 0.1), (0.7, 0.9, 0.7)), fx.box((0.1, 0.2, 0.3), (0.6, 0.5, 1.2)))),
}


@pytest.mark.parametrize("name", ONE_NON_CONVEX)
def test_a_non_convex_part_overlapping_a_convex_one_is_measured_exactly(name):
    parts_a, parts_b = ONE_NON_CONVEX[name]
    a, b = Solid(fx.joined(*parts_a)), Solid(fx.joined(*parts_b))
    assert a.part_overlaps and not all(part.convex for part in a.parts)
    expected = (union(*parts_a) ^ union(*parts_b)).volume()
    double_counted = sum((fx.manifold(p) ^ fx.manifold(q)).volume() for p in parts_a for q in parts_b)
    assert expected > 0.0 and double_counted > expected * 1.05
    contact = collide_solids(a, b)
    assert contact.status == "penetrating"
    assert contact.volume_error == 0.0
    assert contact.overlap_volume == pytest.approx(expected, rel=1e-7, abs=1e-12)


TWO_NON_CONVEX = {
    "two overlapping L-brackets against a box": (
        (BRACKET, fx.transformed(fx.l_bracket(1.0, 0.4, 1.0), offset=(0.15, 0.1, 0.3))),
        (fx.box((0.05, 0.05, 0.2), (0.5, 1.2, 0.9)),)),
    "L-bracket and a torus against overlapping boxes": (
        (BRACKET, fx.transformed(fx.torus(0.5, 0.2), offset=(0.5, 0.2, 0.5))),
        (fx.box((0.0, 0.0, 0.3), (0.8, 0.3, 0.8)), fx.box((0.2, -0.2, 0.4), (0.6, 0.5, 0.6)))),
}


@pytest.mark.parametrize("name", TWO_NON_CONVEX)
def test_two_non_convex_parts_sharing_space_are_measured_exactly(name):
    parts_a, parts_b = TWO_NON_CONVEX[name]
    a, b = Solid(fx.joined(*parts_a)), Solid(fx.joined(*parts_b))
    assert a.part_overlaps and not any(part.convex for part in a.parts)
    expected = (union(*parts_a) ^ union(*parts_b)).volume()
    double_counted = sum((fx.manifold(p) ^ fx.manifold(q)).volume() for p in parts_a for q in parts_b)
    assert expected > 0.0 and double_counted > expected * 1.05
    contact = collide_solids(a, b)
    assert contact.status == "penetrating" and contact.volume_error == 0.0
    assert contact.overlap_volume == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("name", TWO_NON_CONVEX)
def test_when_the_surfaces_cut_gives_up_the_volume_has_a_true_bound(name, monkeypatch):
    """The cut gives up near degenerate triple crossings (rounding); the pairwise sum and its bound stand in."""
    monkeypatch.setattr(core.mesh.parts_union, "region_volume", lambda *args: None)
    parts_a, parts_b = TWO_NON_CONVEX[name]
    contact = collide_solids(Solid(fx.joined(*parts_a)), Solid(fx.joined(*parts_b)))
    expected = (union(*parts_a) ^ union(*parts_b)).volume()
    assert contact.status == "penetrating"
    assert 0.0 < contact.volume_error < contact.overlap_volume
    slack = 1e-9 * contact.overlap_volume
    assert contact.overlap_volume - contact.volume_error - slack <= expected <= contact.overlap_volume + slack


def test_volume_covered_twice_with_a_non_convex_part_among_three():
    parts = (BRACKET, fx.box((0.2, 0.1, 0.2), (0.9, 0.6, 0.8)), fx.box((0.1, 0.2, 0.3), (0.6, 0.5, 1.2)))
    overlaps = part_overlaps(parts, [True] * len(parts))
    assert len(overlaps) == 3
    m = [fx.manifold(p) for p in parts]
    expected = (m[0] ^ m[1]) + (m[0] ^ m[2]) + (m[1] ^ m[2])
    found = covered_twice(parts, [Solid(p).method == "convex" for p in parts], overlaps)
    assert found == pytest.approx(expected.volume(), rel=1e-7, abs=1e-12)
