"""Surfaces that meet without crossing beyond the tolerance: vertices exactly on faces, faces flush, a part resting
inside another. Such a pair shares interior only where one object's vertices lie inside the other deeper than the
tolerance (``containment.vertices_poke_in``); manifold3d's overlap volume is the reference, coal's distance the
reference for pairs that only touch.
"""

import numpy as np
import pytest

from core.mesh import MESH, Solid, collide_solids
from core.mesh.contact import containment
from core.mesh.contact.containment import (share_interior, share_interior_moved, shares_interior_after,
                                           vertices_poke_in)
from mesh_fixtures import box, coal_distance, joined, l_bracket, manifold_overlap, torus, transformed, uv_sphere

SPHERE = uv_sphere(0.3, rings=12, segments=16)
HEIGHTS = np.unique(SPHERE.vertices[:, 2])


def ring_on_top(ring: int = 1) -> tuple[Solid, Solid, float]:
    """An L-bracket and a UV sphere whose ``ring``-th ring of vertices from the bottom lies exactly on the bracket's
    top face (z = 1): the cap below the ring pokes into the bracket, no triangle straddles the face. With the depth of
    the lowest vertex below the face."""
    sphere = transformed(SPHERE, offset=(0.5, 0.5, 1.0 - HEIGHTS[ring]))
    return Solid(l_bracket()), Solid(sphere), float(HEIGHTS[ring] - HEIGHTS[0])


def ring_under(ring: int = 1) -> tuple[Solid, Solid, float]:
    """The same from below: the ``ring``-th ring from the top on the bracket's bottom face (z = 0)."""
    sphere = transformed(SPHERE, offset=(0.5, 0.5, -HEIGHTS[-1 - ring]))
    return Solid(l_bracket()), Solid(sphere), float(HEIGHTS[-1] - HEIGHTS[-1 - ring])


@pytest.mark.parametrize("placed", [ring_on_top, ring_under])
@pytest.mark.parametrize("ring", [1, 2])
def test_a_ring_of_vertices_on_a_face_with_the_cap_through_it_shares_interior(placed, ring):
    a, b, _depth = placed(ring)
    volume, _centroid = manifold_overlap(a.mesh, b.mesh)
    assert volume > 1e-5
    assert share_interior(a, b)
    assert share_interior_moved(a, b, np.zeros(3))
    assert shares_interior_after(a, b, np.zeros((1, 3))).tolist() == [True]


@pytest.mark.parametrize("placed", [ring_on_top, ring_under])
def test_a_ring_of_vertices_on_a_face_is_measured_penetrating(placed):
    """The status, the overlap volume (manifold3d's) and a push-out that leaves no overlap behind, about as long as
    the cap is deep (the sphere cannot leave sideways: the face goes on)."""
    a, b, depth = placed()
    contact = collide_solids(a, b)
    volume, centroid = manifold_overlap(a.mesh, b.mesh)
    assert contact.method == MESH and contact.status == "penetrating"
    assert contact.overlap_volume == pytest.approx(volume, rel=1e-9)
    assert np.allclose(contact.overlap_centroid, centroid, atol=1e-9)
    assert -contact.signed_distance == pytest.approx(depth, rel=1e-6)
    pushed = transformed(b.mesh, offset=(-contact.signed_distance + 1e-9) * contact.normal)
    assert manifold_overlap(a.mesh, pushed)[0] <= 1e-15
    assert not share_interior_moved(a, b, -contact.signed_distance * contact.normal)


@pytest.mark.parametrize("lift", [0.0, 1e-3])
def test_a_pole_resting_on_a_face_only_touches(lift):
    """The lowest vertex alone on the face (or lifted off it): nothing pokes through, coal's distance is the gap."""
    a = Solid(l_bracket())
    b = Solid(transformed(SPHERE, offset=(0.5, 0.5, 1.0 - HEIGHTS[0] + lift)))
    assert manifold_overlap(a.mesh, b.mesh)[0] == 0.0
    assert not share_interior(a, b)
    assert not vertices_poke_in([(a, b, np.zeros((1, 3)))])[0].any()
    contact = collide_solids(a, b)
    assert contact.status == ("touching" if lift == 0.0 else "separated")
    assert contact.signed_distance == pytest.approx(coal_distance(a.mesh, b.mesh), abs=1e-12)


def test_vertices_poke_in_answers_each_offset():
    """Offsets along z of the sphere whose first ring lies on the face: poking while the cap is below the face by more
    than the tolerance, not once it has risen out of it; the same answers pair by pair or several pairs together."""
    a, b, depth = ring_on_top()
    rises = np.array([-0.05, -0.01, 0.0, 0.5 * depth, depth - 1e-6, depth, depth + 1e-6, 0.1])
    offsets = rises[:, None] * np.array([0.0, 0.0, 1.0])
    expected = [manifold_overlap(a.mesh, transformed(b.mesh, offset=offset))[0] > 0.0 for offset in offsets]
    alone = vertices_poke_in([(a, b, offsets)])[0]
    assert alone.tolist() == expected == [True] * 5 + [False] * 3
    other = Solid(box((0.0, 0.0, 0.0), (0.2, 0.2, 0.2)))
    together = vertices_poke_in([(other, b, offsets), (a, b, offsets), (a, b, offsets[:0])])
    assert together[1].tolist() == alone.tolist() and not together[0].any() and len(together[2]) == 0


def test_a_loose_part_inside_the_other_object_is_an_overlap():
    """One object of two loose boxes, one of them wholly inside an L-bracket and the other far outside it: neither
    object's box lies within the other's, no surfaces meet, and still the objects share the inner box's volume."""
    a = Solid(l_bracket())
    b = Solid(joined(box((0.2, 0.2, 0.2), (0.6, 0.6, 0.6)), box((3.0, 3.0, 0.2), (3.4, 3.4, 0.6))))
    volume, _centroid = manifold_overlap(a.mesh, b.mesh)
    assert volume == pytest.approx(0.4 ** 3)
    assert share_interior(a, b) and share_interior(b, a)
    contact = collide_solids(a, b)
    assert contact.status == "penetrating"
    assert contact.overlap_volume == pytest.approx(volume, rel=1e-12)
    pushed = transformed(b.mesh, offset=(-contact.signed_distance + 1e-9) * contact.normal)
    assert manifold_overlap(a.mesh, pushed)[0] == 0.0


def test_vertices_poke_in_gives_the_same_answers_without_its_screens(monkeypatch):
    """The slab screen (``inside.beyond_slabs``) and the vertices gathered pair by pair (``STACKED_VERTICES``) only
    save work: with neither, every vertex in the other's box is counted, and every answer is the same. Offsets about
    the ring on the face, the loose box in the bracket and a sphere sweeping through a torus, many of each poking."""
    a, b, depth = ring_on_top()
    inner = Solid(joined(box((0.2, 0.2, 0.2), (0.6, 0.6, 0.6)), box((3.0, 3.0, 0.2), (3.4, 3.4, 0.6))))
    ring = Solid(torus(1.0, 0.3, 24, 12))
    ball = Solid(uv_sphere(0.25, 10, 14))
    rng = np.random.default_rng(5)
    requests = [(a, b, np.concatenate([[[0.0, 0.0, 0.0], [0.0, 0.0, depth]], rng.normal(scale=0.05, size=(30, 3))])),
                (a, inner, rng.normal(scale=0.3, size=(40, 3))),
                (ring, ball, np.concatenate([rng.uniform(-1.4, 1.4, size=(60, 3)) * [1, 1, 0.3],
                                             [[1.0, 0.0, 0.0], [1.0, 0.0, 0.05 + 1e-12]]])),
                (ball, ring, rng.uniform(-1.4, 1.4, size=(30, 3)) * [1, 1, 0.3])]
    screened = vertices_poke_in(requests)
    monkeypatch.setattr(containment, "beyond_slabs", lambda stack, points, owners: np.zeros(len(points), dtype=bool))
    monkeypatch.setattr(containment, "STACKED_VERTICES", 100)
    plain = vertices_poke_in(requests)
    for found, expected in zip(screened, plain):
        np.testing.assert_array_equal(found, expected)
    assert 10 <= sum(int(found.sum()) for found in screened) < sum(len(found) for found in screened) - 10
