"""Steps of the triangle tree's build against plain references: the Morton keys (21 bits per axis interleaved, as
Python integers), the oriented boxes' rounding allowance (from every coordinate) and the node axes (the principal
directions of each fine node's corners, numpy's ``eigh`` of their covariance summed as the build sums it)."""

import numpy as np
import pytest

from core.mesh.bvh import TriangleBVH, _MortonGrid, _padding
import mesh_fixtures as fx


def interleaved(cell: tuple[int, int, int]) -> int:
    """Bit i of the x cell to bit 3i + 2, of y to 3i + 1, of z to 3i."""
    return sum(((cell[axis] >> bit) & 1) << (3 * bit + 2 - axis) for bit in range(21) for axis in range(3))


@pytest.mark.parametrize("seed", range(3))
def test_morton_keys_interleave_the_cells_bits(seed):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(500, 3)) * 10.0 ** rng.integers(-4, 4, size=3)
    points[:3] = points.min(axis=0), points.max(axis=0), 0.5 * (points.min(axis=0) + points.max(axis=0))
    grid = _MortonGrid(points)
    half = 0.5 * points
    low = half.min(axis=0)
    scale = (2**21 - 1) / float((half.max(axis=0) - low).max())
    cells = np.minimum((half - low) * scale, 2**21 - 1).astype(np.int64)
    assert cells.max() >= 2**21 - 2 and cells.min() == 0
    assert [int(code) for code in grid.codes] == [interleaved(tuple(cell)) for cell in cells.tolist()]


def test_the_rounding_allowance_is_the_largest_coordinates_share():
    rng = np.random.default_rng(4)
    triangles = np.array([[0, 1, 2], [1, 2, 3]])
    for corners in [rng.normal(size=(4, 3)), -np.abs(rng.normal(size=(4, 3))), np.abs(rng.normal(size=(4, 3))),
                    np.array([[-0.0, 0.0, 0.0], [0.0, -0.0, 0.0], [0.0, 0.0, -0.0], [0.0, 0.0, 0.0]])]:
        shape = fx.mesh(corners * 10.0 ** rng.integers(-5, 5), triangles)
        assert _padding(shape) == 1e-13 * float(np.abs(shape.vertices).max())


@pytest.mark.parametrize("shape", [fx.uv_sphere(1.0, 12, 16), fx.torus(2.0, 0.5, 24, 12), fx.cup()])
def test_node_axes_are_their_corners_principal_directions(shape):
    """Leaves of two triangles (their corners summed as the build sums them) and their parents: ``eigh``'s
    eigenvectors of the corners' covariance, bit for bit, and each oriented box holds its node's corners."""
    tree = TriangleBVH.build(shape, leaf_size=2)
    internal = np.flatnonzero(tree.children[:, 0] >= 0)
    parents = internal[(tree.children[internal] >= 0).all(axis=1)
                       & tree.is_leaf[tree.children[internal]].all(axis=1)]
    assert len(parents) > 3
    for node in parents[:40].tolist():
        children = tree.children[node].tolist()
        sums, moments = [], []
        for child in children:
            corners = shape.corners[tree.order[tree.starts[child]:tree.ends[child]]]
            per_triangle = corners[:, 0] + corners[:, 1] + corners[:, 2]
            sums.append(np.add.reduce(per_triangle, axis=0))
            moments.append(np.add.reduce(np.matmul(corners.transpose(0, 2, 1), corners), axis=0))
        for child, total, moment in [(children[0], sums[0], moments[0]), (children[1], sums[1], moments[1]),
                                     (node, sums[0] + sums[1], moments[0] + moments[1])]:
            triangles = 3.0 * (tree.ends[child] - tree.starts[child])
            mean = total / triangles
            covariance = moment / triangles - mean[:, None] * mean[None, :]
            assert np.array_equal(tree.axes[child], np.linalg.eigh(covariance[None])[1][0])
            corners = shape.corners[tree.order[tree.starts[child]:tree.ends[child]]].reshape(-1, 3)
            local = (corners - tree.centres[child]) @ tree.axes[child]
            assert (np.abs(local) <= tree.halves[child]).all()
