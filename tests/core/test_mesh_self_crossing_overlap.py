"""Overlap volumes of objects whose parts cross themselves (two pieces fused into one surface by a tube, as a sculpt
or a careless join leaves them): the solid is where the winding number is at least 1, counted once, against
manifold3d's booleans of the pieces (the tube, lifted above both, stays out of the boxes measured against)."""

import numpy as np
import pytest

import generators as gen
import mesh_fixtures as fx
from core.mesh import Solid, collide_solids
from core.mesh.contact.volumes import pair_volume
from core.mesh.self_intersection import PAIRED_TRIANGLES, self_intersecting, self_intersection
from core.mesh.sheets import MAX_SHEETS, single_cover, single_covers, star_shaped, stars_shaped

PIECES = {
    "two tori": (fx.torus(0.5, 0.2, 24, 12),
                 fx.transformed(fx.torus(0.5, 0.2, 24, 12), fx.rotation_z(0.1), offset=(0.3, 0.02, 0.03))),
    "two boxes": (fx.box((0, 0, 0), (1, 1, 1)), fx.box((0.5, 0.2, 0.2), (1.5, 0.8, 0.8))),
    "a torus and a ring through it": (
        fx.torus(0.6, 0.25), fx.transformed(fx.torus(0.5, 0.2), fx.rotation_z(0.3) @ np.array(
            [[1, 0, 0], [0, 0, -1], [0, 1, 0.0]]), (0.7, 0.1, 0))),
}
#: Boxes (low, high) per pieces: inside the space both cover (no triangle near), across a crossing curve, across
#: the whole shared space, and away from it (covered once: the surfaces' own method).
BOXES = {
    "two tori": [((0.05, 0.45, -0.02), (0.1, 0.5, 0.02)), ((-0.1, 0.3, -0.1), (0.2, 0.6, 0.1)),
                 ((-0.3, -0.8, -0.15), (0.6, 0.8, 0.15)), ((-0.4, -0.6, -0.1), (-0.3, -0.5, 0.1))],
    "two boxes": [((0.6, 0.3, 0.3), (0.9, 0.7, 0.7)), ((0.3, 0.1, 0.1), (0.7, 0.9, 0.5)),
                  ((0.4, 0.1, 0.1), (1.45, 0.9, 0.9)), ((0.05, 0.05, 0.05), (0.3, 0.3, 0.3))],
    "a torus and a ring through it": [((0.45, -0.1, -0.1), (0.75, 0.3, 0.1)), ((0.2, -0.5, -0.3), (1.0, 0.5, 0.3)),
                                      ((-0.8, -0.2, -0.2), (-0.5, 0.2, 0.2))],
}


def fused(first, second):
    return fx.mesh(*gen.tube_joined(first.vertices, first.triangles, second.vertices, second.triangles))


@pytest.mark.parametrize("name", sorted(PIECES))
def test_an_object_crossing_itself_against_boxes_matches_manifold_on_the_union_of_its_pieces(name):
    first, second = PIECES[name]
    surface = fused(first, second)
    solid = Solid(surface, name="fused")
    assert len(solid.parts) == 1 and solid.closed
    pieces = fx.manifold(first) + fx.manifold(second)
    for low, high in BOXES[name]:
        box = fx.box(low, high)
        expected = (pieces ^ fx.manifold(box)).volume()
        volume, centroid, error = pair_volume(solid, Solid(box))
        assert error == 0.0
        assert volume == pytest.approx(expected, rel=1e-9, abs=1e-12), (low, high)
        if expected > 0.0:
            np.testing.assert_allclose(centroid, centroid_of(pieces ^ fx.manifold(box)), atol=1e-9)
        contact = collide_solids(Solid(box), solid)  # the other order, through the whole pair
        assert contact.overlap_volume == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert contact.volume_error == 0.0


def centroid_of(solid) -> np.ndarray:
    out = solid.to_mesh64()
    c = np.asarray(out.vert_properties)[:, :3][np.asarray(out.tri_verts, dtype=np.int64)]
    det = np.einsum("ij,ij->i", c[:, 0], np.cross(c[:, 1], c[:, 2]))
    return (det[:, None] * c.sum(axis=1)).sum(axis=0) / (4 * det.sum())


def test_an_object_with_a_part_crossing_itself_and_another_part_overlapping_it():
    """Parts path: the fused tori and a box part sharing space with them, against a box across all three."""
    first, second = PIECES["two tori"]
    extra = fx.box((-0.2, 0.35, -0.1), (0.5, 0.55, 0.1))
    solid = Solid(fx.joined(fused(first, second), extra))
    assert len(solid.parts) == 2 and solid.part_overlaps
    box = fx.box((-0.1, 0.3, -0.15), (0.3, 0.7, 0.15))
    expected = ((fx.manifold(first) + fx.manifold(second) + fx.manifold(extra)) ^ fx.manifold(box)).volume()
    volume, _, error = pair_volume(solid, Solid(box))
    assert error == 0.0 and volume == pytest.approx(expected, rel=1e-9)


def test_covering_once_is_proved_only_where_it_holds():
    first, second = PIECES["two tori"]
    surface = fused(first, second)
    whole = surface.vertices.min(axis=0), surface.vertices.max(axis=0)
    assert single_cover(first, first.vertices.min(axis=0), first.vertices.max(axis=0))
    assert not single_cover(surface, *whole)  # its own crossings
    for (low, high), once in zip(BOXES["two tori"], (False, False, False, True)):
        assert single_cover(surface, np.array(low, float), np.array(high, float)) == once
    nested = fx.joined(fx.box((0, 0, 0), (3, 3, 3)), fx.box((1, 1, 1), (2, 2, 2)))  # a box inside a box: covered twice
    assert not single_cover(nested, np.array([0.5, 0.5, 0.5]), np.array([2.5, 2.5, 2.5]))
    assert single_cover(nested, np.array([0.2, 0.2, 0.2]), np.array([0.8, 0.8, 0.8]))


def test_when_the_cut_gives_up_the_volume_is_labelled_with_a_bound_that_holds():
    """Two tori in one plane, one moved along x only: their crossing curves meet in degenerate triple crossings
    the cut does not settle; the volume is then approximate, the true one within its bound."""
    first = fx.torus(0.5, 0.2, 24, 12)
    second = fx.transformed(first, offset=(0.3, 0.0, 0.0))
    box = fx.box((0.05, 0.45, -0.02), (0.1, 0.5, 0.02))  # inside both: covered twice
    expected = ((fx.manifold(first) + fx.manifold(second)) ^ fx.manifold(box)).volume()
    volume, _, error = pair_volume(Solid(fused(first, second)), Solid(box))
    assert error > 0.0 and abs(volume - expected) <= error


def test_star_shaped_meshes_are_proved_at_once_and_others_are_not():
    from core.mesh.sheets import star_shaped
    rng = np.random.default_rng(5)
    sphere = fx.uv_sphere(1.0, 16, 24)
    blob = fx.mesh(sphere.vertices * rng.uniform(0.9, 1.1, (len(sphere.vertices), 1)), sphere.triangles)
    assert star_shaped(sphere) and star_shaped(blob) and star_shaped(fx.box())
    first, second = PIECES["two boxes"]
    assert not star_shaped(fx.torus()) and not star_shaped(fx.l_bracket()) and not star_shaped(fused(first, second))
    vertices = blob.vertices.copy()
    vertices[40] *= -0.5  # a vertex pulled through the middle: its triangles turn towards the centre
    assert not star_shaped(fx.mesh(vertices, blob.triangles))


def seeded_meshes() -> list:
    """Closed meshes that cover space once or not, for the batched proofs: pieces fused into one surface, nested
    boxes, tori and brackets, jittered spheres (a vertex pulled out through the far side: faces crossing), parts
    whose faces overlap in one plane or cross, a part too small to place a point in front of, more pieces than ``MAX_SHEETS``; meshes above and
    below ``PAIRED_TRIANGLES``."""
    rng = np.random.default_rng(11)
    meshes = [fused(*PIECES[name]) for name in sorted(PIECES)] + [piece for name in sorted(PIECES)
                                                                  for piece in PIECES[name]]
    meshes += [fx.joined(fx.box((0, 0, 0), (3, 3, 3)), fx.box((1, 1, 1), (2, 2, 2))), fx.torus(0.5, 0.2, 8, 6),
               fx.l_bracket(), fx.box(), fx.cup(), fx.block_with_hole(), fx.chain_link(), fx.wall_with_door()]
    sphere = fx.uv_sphere(1.0, 8, 12)
    for seed in range(8):
        vertices = sphere.vertices * rng.uniform(0.7, 1.3, (len(sphere.vertices), 1))
        if seed % 2:
            vertices[rng.integers(len(vertices))] *= -rng.uniform(1.5, 3.0)  # out through the far side: faces cross
        meshes.append(fx.mesh(vertices, sphere.triangles))
    meshes.append(fx.joined(fx.box(), fx.box((0.5, 0.5, 1.0), (1.5, 1.5, 2.0))))  # faces overlapping in one plane
    meshes.append(fx.joined(fx.box(), fx.box((0.5, 0.5, 0.5), (1.5, 1.5, 1.5))))  # parts crossing
    meshes.append(fx.joined(fx.box(), fx.box((2, 0, 0), (2 + 1e-12, 1e-12, 1e-12))))  # a part too small for a point
    meshes.append(fx.joined(*(fx.box((2 * k, 0, 0), (2 * k + 1, 1, 1)) for k in range(MAX_SHEETS + 1))))
    return meshes


def test_many_meshes_proved_together_get_each_ones_own_answers():
    """``self_intersecting``, ``stars_shaped`` and ``single_covers`` of many meshes at once against each mesh's
    own ``self_intersection``, ``star_shaped`` and ``single_cover`` over its box, in two orders."""
    meshes = seeded_meshes()
    sizes = [len(mesh.triangles) for mesh in meshes]
    assert max(sizes) > PAIRED_TRIANGLES > min(sizes)
    crossing = np.array([self_intersection(mesh).count > 0 for mesh in meshes])
    shaped = np.array([star_shaped(mesh) for mesh in meshes])
    once = np.array([single_cover(mesh, mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)) for mesh in meshes])
    for order in (np.arange(len(meshes)), np.random.default_rng(3).permutation(len(meshes))):
        listed = [meshes[k] for k in order]
        assert (self_intersecting(listed) == crossing[order]).all()
        assert (stars_shaped(listed) == shaped[order]).all()
        assert (single_covers(listed) == once[order]).all()
    assert crossing.sum() >= 6 and (~crossing).sum() >= 10 and shaped.sum() >= 4
    assert once.sum() >= 10 and (~once & ~crossing).sum() >= 3  # refused for their pieces, not only for crossings
