"""``TriangleBVH.moved``: a tree carried along with its mesh (translated, rigid, scaled, mirrored, sheared) still
bounds every node's triangles, and exact queries on it give what a freshly built tree gives (coal's distance as
reference)."""

import numpy as np
import pytest

from core.mesh import Solid, collide_solids, mesh_distance, nearest_on_surface
from core.mesh.bvh import TriangleBVH
from generators import random_rotation
from mesh_fixtures import coal_distance, torus, transformed, uv_sphere

MAPS = {
    "translated": lambda rng: np.eye(3),  # boxes only shift (``TriangleBVH._translated``)
    "rigid": lambda rng: random_rotation(rng),
    "scaled": lambda rng: 2.5 * random_rotation(rng),
    "mirrored": lambda rng: np.diag([-1.0, 1.0, 1.0]) @ random_rotation(rng),
    "stretched": lambda rng: random_rotation(rng) @ np.diag([1.7, 0.4, 1.0]) @ random_rotation(rng),
    "float32 rotation": lambda rng: random_rotation(rng).astype(np.float32).astype(np.float64),
}


def matrix_of(linear: np.ndarray, offset) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, :3], matrix[:3, 3] = linear, offset
    return matrix


def moved_pair(name: str, seed: int):
    """A torus, its tree, and the torus under a random map of kind ``name`` with the tree moved along."""
    rng = np.random.default_rng(seed)
    source = Solid(torus(major=1.0, minor=0.3, major_segments=40, minor_segments=16))
    matrix = matrix_of(MAPS[name](rng), rng.uniform(-50.0, 50.0, 3))
    moved = source.transformed(matrix)
    return source, moved, moved.bvh


@pytest.mark.parametrize("name", MAPS)
def test_every_moved_node_still_holds_its_triangles(name):
    _source, moved, tree = moved_pair(name, 1)
    corners = moved.mesh.corners[tree.order].reshape(-1, 3)  # three rows per triangle, in tree order
    owner = np.repeat(np.arange(len(tree.order)), 3)
    for node in range(len(tree.starts)):
        inside = (owner >= tree.starts[node]) & (owner < tree.ends[node])
        points = corners[inside]
        assert (points >= tree.lows[node]).all() and (points <= tree.highs[node]).all()
        local = np.abs((points - tree.centres[node]) @ tree.axes[node])
        assert (local <= tree.halves[node]).all()
    np.testing.assert_allclose(tree.axes.transpose(0, 2, 1) @ tree.axes, np.broadcast_to(np.eye(3), tree.axes.shape),
                               atol=1e-12)


@pytest.mark.parametrize("name", MAPS)
def test_queries_on_a_moved_tree_are_those_on_a_built_one(name):
    _source, moved, tree = moved_pair(name, 2)
    built = TriangleBVH.build(moved.mesh)
    rng = np.random.default_rng(3)
    ball = transformed(uv_sphere(0.4, rings=10, segments=20), offset=moved.mesh.vertices.mean(axis=0)
                       + rng.uniform(-2.5, 2.5, 3))
    on_moved = mesh_distance(moved.mesh, ball, bvh_a=tree)
    on_built = mesh_distance(moved.mesh, ball, bvh_a=built)
    assert on_moved.distance == on_built.distance
    assert on_moved.distance == pytest.approx(coal_distance(moved.mesh, ball), abs=1e-9)
    points = moved.mesh.vertices.mean(axis=0) + rng.uniform(-3.0, 3.0, (200, 3))
    np.testing.assert_array_equal(nearest_on_surface(moved.mesh, points, bvh=tree)[0],
                                  nearest_on_surface(moved.mesh, points, bvh=built)[0])


def test_a_moved_copy_reuses_its_sources_tree_and_answers_like_a_fresh_object():
    source, moved, tree = moved_pair("rigid", 4)
    assert tree.order is source.bvh.order  # carried along, not built again
    ring = moved.mesh.vertices.mean(axis=0)
    other = Solid(transformed(uv_sphere(0.25), offset=ring))  # in the hole
    fresh = Solid(moved.mesh)
    assert collide_solids(moved, other).signed_distance == collide_solids(fresh, other).signed_distance
