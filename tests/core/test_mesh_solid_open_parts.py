"""A solid whose mesh has an edge not used once each way (open, non-manifold) is classified from the whole mesh's edge
table, without splitting it into its loose parts: its method and closedness, and its moved copies', must be what the
solid finds from its parts, on open, cracked, non-manifold, several-part and cavity meshes."""

import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh.solid import MESH, Solid
from core.mesh.topology import bounds_volume, is_closed


def opened(shape, count):
    return fx.mesh(shape.vertices, shape.triangles[count:])


def inside_out(shape):
    return fx.mesh(shape.vertices, shape.triangles[:, ::-1])


def edge_joined_boxes():
    """Two boxes sharing an edge (one vertex-joined part): every edge used as often each way, yet four times."""
    first, second = fx.box((0, 0, 0), (1, 1, 1)), fx.box((1, 1, 0), (2, 2, 1))
    vertices = np.concatenate([first.vertices, second.vertices])
    triangles = np.concatenate([first.triangles, second.triangles + len(first.vertices)])
    _, representative, inverse = np.unique(vertices, axis=0, return_index=True, return_inverse=True)
    return fx.mesh(vertices[representative], np.argsort(representative).argsort()[inverse.ravel()][triangles])


MESHES = {
    "open cup": fx.cup(),
    "opened sphere": opened(fx.uv_sphere(1.0, 16, 24), 5),
    "open sphere and closed box": fx.joined(opened(fx.uv_sphere(1.0, 16, 24), 3), fx.box((3, 0, 0), (4, 1, 1))),
    "closed box and open cup": fx.joined(fx.box((3, 0, 0), (4, 1, 1)), fx.cup()),
    "hollow with an open hole": fx.joined(fx.box((-2, -2, -2), (2, 2, 2)), opened(inside_out(fx.uv_sphere()), 2)),
    "edge-joined boxes": edge_joined_boxes(),
    "edge-joined boxes and an open sphere": fx.joined(edge_joined_boxes(), opened(fx.uv_sphere(1.0, 8, 8), 1)),
    "closed parts": fx.joined(fx.box(), fx.uv_sphere(0.5, 8, 8), fx.torus()),
    "hollow": fx.joined(fx.box((-2, -2, -2), (2, 2, 2)), inside_out(fx.uv_sphere())),
}


@pytest.mark.parametrize("name", MESHES)
def test_method_and_closedness_without_the_parts_are_the_parts_answers(name):
    shape = MESHES[name]
    quick = Solid(shape)
    method, closed = quick.method, quick.closed
    split = Solid(shape)
    split.parts  # the parts first: method and closedness from them
    assert (method, closed) == (split.method, split.closed)
    assert closed == all(part.closed for part in split.parts)
    if not is_closed(quick.mesh):
        assert "parts" not in quick.__dict__ and method == MESH  # (the shortcut was taken)
    copy = quick.transformed(np.diag([2.0, -1.0, 1.0, 1.0]))
    assert (copy.method, copy.closed) == (method, closed)
    assert "parts" not in copy.__dict__ or is_closed(quick.mesh)  # (the copy kept what its source found)


def test_the_edge_joined_boxes_bound_a_volume_without_being_closed():
    shape = edge_joined_boxes()
    assert bounds_volume(shape) and not is_closed(shape)
    assert Solid(shape).closed
