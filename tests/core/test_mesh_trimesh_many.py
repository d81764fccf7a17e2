"""TriangleMesh.many_from_arrays: the meshes from_arrays makes of each slice, and its errors, checked at once."""

import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh.trimesh import TriangleMesh


def laid_end_to_end(meshes: list[TriangleMesh]) -> tuple:
    """The meshes' vertices and triangles concatenated, with their counts (indices stay each mesh's own)."""
    return (np.concatenate([m.vertices for m in meshes]), np.concatenate([m.triangles for m in meshes]),
            [len(m.vertices) for m in meshes], [len(m.triangles) for m in meshes])


def seeded_meshes(seed: int) -> list[TriangleMesh]:
    rng = np.random.default_rng(seed)
    shapes = [fx.box(), fx.uv_sphere(), fx.torus(), fx.l_bracket()]
    return [shapes[k % 4] for k in rng.integers(0, 4, 40)]


@pytest.mark.parametrize("seed", range(3))
def test_the_meshes_are_from_arrays_of_each_slice_bit_for_bit(seed):
    meshes = seeded_meshes(seed)
    rng = np.random.default_rng(seed)
    vertices, triangles, vertex_counts, triangle_counts = laid_end_to_end(meshes)
    vertices = vertices * rng.uniform(0.5, 2.0) + rng.normal(size=3)  # coordinates with every bit used
    names = [f"mesh {k}" for k in range(len(meshes))]
    made = TriangleMesh.many_from_arrays(vertices, triangles.astype(np.int32), vertex_counts, triangle_counts, names)
    start = stop = 0
    for mesh, count, triangle_count in zip(made, vertex_counts, triangle_counts):
        expected = TriangleMesh.from_arrays(vertices[start:start + count], triangles[stop:stop + triangle_count])
        assert mesh.vertices.dtype == expected.vertices.dtype and mesh.triangles.dtype == expected.triangles.dtype
        assert mesh.vertices.tobytes() == expected.vertices.tobytes()
        assert mesh.triangles.tobytes() == expected.triangles.tobytes()
        assert not mesh.vertices.flags.writeable and not mesh.triangles.flags.writeable
        assert mesh.vertices.flags.c_contiguous and mesh.triangles.flags.c_contiguous
        assert "box" in mesh.__dict__  # made together, the numbers a mesh's own ``box`` gives
        assert [corner.tobytes() for corner in mesh.box] == [corner.tobytes() for corner in expected.box]
        start, stop = start + count, stop + triangle_count
    vertices[:] = 0.0  # the meshes hold their own copy
    assert made[0].vertices.any()


def test_a_mesh_without_triangles_is_kept_and_none_at_all_gives_none():
    points = fx.box().vertices
    made = TriangleMesh.many_from_arrays(points, np.empty((0, 3), dtype=np.int64), [len(points)], [0], ["cloud"])
    assert len(made) == 1 and len(made[0].triangles) == 0 and np.array_equal(made[0].vertices, points)
    assert TriangleMesh.many_from_arrays(np.empty((0, 3)), np.empty((0, 3), dtype=np.int64), [], [], []) == []


@pytest.mark.parametrize("spoil", ["index past its own vertices", "negative index", "nan", "too large", "empty"])
def test_a_bad_mesh_raises_from_arrays_error_naming_it(spoil):
    meshes = [fx.box(), fx.box(), fx.uv_sphere()]
    vertices, triangles, vertex_counts, triangle_counts = laid_end_to_end(meshes)
    if spoil == "index past its own vertices":
        triangles[12, 1] = 8  # the second box's first triangle points at the sphere: in range of the whole array
    elif spoil == "negative index":
        triangles[12, 0] = -1
    elif spoil == "nan":
        vertices[9, 2] = np.nan
    elif spoil == "too large":
        vertices[9, 0] = 1e120
    else:
        vertices = np.delete(vertices, np.s_[8:16], axis=0)
        triangles = np.delete(triangles, np.s_[12:24], axis=0)
        vertex_counts[1], triangle_counts[1] = 0, 0
    names = ["first", "second", "third"]
    with pytest.raises(ValueError) as raised:
        TriangleMesh.many_from_arrays(vertices, triangles, vertex_counts, triangle_counts, names)
    start, stop = sum(vertex_counts[:1]), sum(triangle_counts[:1])
    with pytest.raises(ValueError) as alone:
        TriangleMesh.from_arrays(vertices[start:start + vertex_counts[1]], triangles[stop:stop + triangle_counts[1]],
                                 "second")
    assert str(raised.value) == str(alone.value)
    assert "second" in str(raised.value)
