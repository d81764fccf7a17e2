"""``Solid.transformed``: a moved solid answers like the moved object read afresh (coal and manifold3d
as references), for convex, multi-part and non-convex objects, rigid moves, scales and mirrors."""

import numpy as np
import pytest

from core.mesh import Solid, collide_solids
from mesh_fixtures import box, coal_distance, joined, l_bracket, manifold_overlap, rotation_z, torus, transformed

MOVES = {
    "rigid": (rotation_z(0.7), (0.3, -0.2, 0.1)),
    "scaled": (np.diag([1.5, 0.5, 2.0]) @ rotation_z(0.3), (0.1, 0.0, 0.4)),
    "mirrored": (np.diag([-1.0, 1.0, 1.0]) @ rotation_z(-0.4), (0.0, 0.2, 0.0)),
}
SHAPES = {
    "box": box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)),
    "two boxes": joined(box((-1.5, -0.5, -0.5), (-0.5, 0.5, 0.5)), box((0.5, -0.5, -0.5), (1.5, 0.5, 0.5))),
    "bracket": l_bracket(),
    "torus": torus(major=1.0, minor=0.3),
}


def _matrix(linear, offset) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, :3], matrix[:3, 3] = linear, offset
    return matrix


@pytest.mark.parametrize("move", MOVES.values(), ids=MOVES.keys())
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("gap", [1.0, -0.15])
def test_transformed_solid_measures_like_the_moved_mesh(shape, move, gap):
    linear, offset = move
    solid = Solid(shape, name="a")
    solid.method, solid.hull, [part.polytope for part in solid.parts]  # prepared before the move
    moved = solid.transformed(_matrix(linear, offset))
    fresh_mesh = transformed(shape, linear, offset)
    _x, y, z = tip = fresh_mesh.vertices[fresh_mesh.vertices[:, 0].argmax()]
    other_mesh = box((tip[0] + gap, y - 0.2, z - 0.2), (tip[0] + gap + 1.0, y + 0.2, z + 0.2))
    other = Solid(other_mesh, name="b")
    contact = collide_solids(moved, other)
    assert moved.method == Solid(fresh_mesh).method
    if gap > 0:
        assert contact.signed_distance == pytest.approx(coal_distance(fresh_mesh, other_mesh), abs=1e-7)
    else:
        assert contact.status == "penetrating"
        volume, _ = manifold_overlap(fresh_mesh, other_mesh)
        assert contact.overlap_volume == pytest.approx(volume, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("move", MOVES.values(), ids=MOVES.keys())
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_a_moved_copy_makes_its_triangles_only_when_asked(shape, move):
    """A copy's box comes without its triangles (a scan's frames, a check's broad phase need no more): a convex
    one's from its moved hull, another's from its source's vertices moved, its triangles' box bit for bit; once asked
    for, its triangles and parts are the moved object's, outward even under a mirror."""
    source = Solid(shape)
    moved = source.transformed(_matrix(*move))
    fresh = Solid(transformed(shape, *move))
    low, high = moved.bounds
    assert "raw_mesh" not in moved.__dict__
    if source.method != 'convex':
        assert [corner.tobytes() for corner in moved.raw_mesh.box] == [low.tobytes(), high.tobytes()]
    np.testing.assert_allclose(low, fresh.bounds[0], atol=1e-14)
    np.testing.assert_allclose(high, fresh.bounds[1], atol=1e-14)
    np.testing.assert_allclose(moved.mesh.vertices, fresh.mesh.vertices, atol=1e-14)
    assert moved.method == fresh.method and len(moved.parts) == len(fresh.parts)
    for part, fresh_part in zip(moved.parts, fresh.parts):
        assert part.closed == fresh_part.closed and part.convex == fresh_part.convex
        np.testing.assert_allclose(part.mesh.corners, fresh_part.mesh.corners, atol=1e-14)
