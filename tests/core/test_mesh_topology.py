"""Mesh topology (parts, closedness, convexity, sub-meshes) and the two-set box sweep, against references."""

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import ConvexHull

import core.broadphase.sort_and_sweep
import core.mesh.topology as topology_module
import mesh_fixtures as fx
from core.broadphase.sort_and_sweep import overlapping_pairs_between
from core.mesh.topology import (EdgeTable, component_offsets, edge_table, is_closed, is_convex, label_components,
                                loose_parts, part_meshes, sorted_keys, submesh)
from core.mesh.trimesh import TriangleMesh

CLOSED = {
    "box": fx.box(), "sphere": fx.uv_sphere(), "torus": fx.torus(), "rod": fx.rod(), "cup": fx.cup(),
    "l_bracket": fx.l_bracket(), "wall": fx.wall_with_door(), "block_with_hole": fx.block_with_hole(),
    "chain_link": fx.chain_link(), "two_boxes": fx.joined(fx.box(), fx.box((2, 0, 0), (3, 1, 1))),
}
CONVEX = {"box", "sphere", "rod"}


@pytest.mark.parametrize("name", sorted(CLOSED))
def test_fixtures_are_closed_and_convex_only_when_they_should_be(name):
    shape = CLOSED[name]
    assert is_closed(shape)
    assert fx.manifold(shape).status().name == "NoError"  # manifold3d accepts it as a closed solid
    assert is_convex(shape) == (name in CONVEX)


def test_open_or_inconsistent_meshes_are_not_closed():
    box = fx.box()
    open_box = fx.mesh(box.vertices, box.triangles[1:])
    flipped = box.triangles.copy()
    flipped[0] = flipped[0, ::-1]
    assert not is_closed(open_box)
    assert not is_convex(open_box)  # an open mesh bounds no solid
    assert not is_closed(fx.mesh(box.vertices, flipped))


@pytest.mark.parametrize("seed", range(5))
def test_hulls_of_random_clouds_are_convex_and_dented_ones_are_not(seed):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(60, 3))
    hull = ConvexHull(points)
    triangles = hull.simplices.copy()
    centre = points[hull.vertices].mean(axis=0)
    c = points[triangles]
    inward = np.einsum("ij,ij->i", np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0]), c[:, 0] - centre) < 0
    triangles[inward] = triangles[inward, ::-1]
    assert is_convex(fx.mesh(points, triangles))
    dented = points.copy()
    vertex = hull.vertices[0]
    dented[vertex] = centre + 0.5 * (points[vertex] - centre)  # pulled inside: the surface caves in there
    assert not is_convex(fx.mesh(dented, triangles))


def test_loose_parts_label_each_part():
    shape = fx.joined(fx.box(), fx.uv_sphere(), fx.torus())
    labels, count = loose_parts(shape)
    assert count == 3
    sizes = [len(fx.box().triangles), len(fx.uv_sphere().triangles), len(fx.torus().triangles)]
    expected = np.repeat(np.arange(3), sizes)
    assert all(len(np.unique(labels[expected == k])) == 1 for k in range(3))
    assert len(np.unique(labels)) == 3
    again = fx.joined(fx.box(), fx.uv_sphere(), fx.torus())
    edge_table(again)  # linked by its edges once they are made: the same labels
    assert np.array_equal(loose_parts(again)[0], labels) and loose_parts(again)[1] == 3


@pytest.mark.parametrize("seed", range(4))
def test_label_components_matches_scipy_and_parities_are_path_free(seed):
    rng = np.random.default_rng(seed)
    count = 400
    first, second = rng.integers(0, count, size=(2, 300))
    root, relation = label_components(count, first, second)
    graph = coo_matrix((np.ones(len(first)), (first, second)), shape=(count, count))
    _, reference = connected_components(graph, directed=False)
    same_ours = root[:, None] == root[None, :]
    same_scipy = reference[:, None] == reference[None, :]
    np.testing.assert_array_equal(same_ours, same_scipy)
    assert np.all(root <= np.arange(count)) and np.all(relation == 0)
    colour = rng.integers(0, 2, size=count)  # parities that come from a two-colouring are consistent
    _, relation = label_components(count, first, second, colour[first] ^ colour[second])
    np.testing.assert_array_equal(relation, colour ^ colour[root])


@pytest.mark.parametrize("seed", range(4))
def test_component_offsets_recover_potentials_up_to_one_constant_per_component(seed):
    rng = np.random.default_rng(seed)
    count = 400
    first, second = rng.integers(0, count, size=(2, 300))
    potential = rng.integers(-5, 6, size=(count, 2))  # steps that come from potentials are consistent
    root, offset = component_offsets(count, first, second, potential[second] - potential[first])
    reference, _ = label_components(count, first, second)
    np.testing.assert_array_equal(root, reference)
    np.testing.assert_array_equal(offset, potential - potential[root])


def test_edge_table_and_submesh():
    shape = fx.torus(2, 0.5, 12, 8)
    table = edge_table(shape)
    assert len(table.edges) == 3 * len(shape.triangles) // 2
    assert np.all(table.uses == 2) and np.all(table.forward_uses == 1)
    labels, _ = loose_parts(fx.joined(shape, fx.box()))
    part = submesh(fx.joined(shape, fx.box()), labels == labels[-1])
    assert len(part.triangles) == 12 and len(part.vertices) == 8 and is_convex(part)


def unique_edge_table(mesh: TriangleMesh) -> EdgeTable:
    """The edge table by ``np.unique`` over the half-edges' keys (how ``edge_table`` was first written)."""
    tails, heads = mesh.triangles, mesh.triangles[:, [1, 2, 0]]
    keys = (np.minimum(tails, heads) * len(mesh.vertices) + np.maximum(tails, heads)).ravel()
    unique_keys, inverse = np.unique(keys, return_inverse=True)
    forward = (tails < heads).ravel()
    uses = np.bincount(inverse, minlength=len(unique_keys))
    forward_uses = np.bincount(inverse, weights=forward, minlength=len(unique_keys)).astype(np.int64)
    edges = np.stack(np.divmod(unique_keys, len(mesh.vertices)), axis=1)
    return EdgeTable(edges, inverse.reshape(-1, 3), forward.reshape(-1, 3), uses, forward_uses)


def seeded_meshes(seed: int) -> list[TriangleMesh]:
    """Closed, open, non-manifold (edges of three or four triangles, triangles repeated or turned), degenerate
    (a vertex twice in a triangle, all three the same), with unused vertices, shuffled, and empty."""
    rng = np.random.default_rng(seed)
    torus = fx.torus(2, 0.5, 12, 8)
    shuffled = torus.triangles[rng.permutation(len(torus.triangles))]
    random = rng.integers(0, 40, size=(300, 3))
    degenerate = np.vstack([random[:50], [[3, 3, 7], [5, 5, 5], [7, 3, 3], [0, 1, 0]]])
    fan = np.array([[0, 1, k] for k in range(2, 6)])  # edge 0-1 shared by four triangles
    repeated = np.vstack([shuffled, shuffled[:10], shuffled[10:20, ::-1]])
    meshes = [torus, TriangleMesh.from_arrays(torus.vertices, shuffled),
              TriangleMesh.from_arrays(torus.vertices, repeated), TriangleMesh.from_arrays(torus.vertices, shuffled[7:]),
              TriangleMesh.from_arrays(rng.normal(size=(45, 3)), random),
              TriangleMesh.from_arrays(rng.normal(size=(40, 3)), degenerate),
              TriangleMesh.from_arrays(rng.normal(size=(9, 3)), fan), fx.box(),
              TriangleMesh.from_arrays(np.zeros((3, 3)), np.zeros((0, 3), dtype=np.int64))]
    return meshes + [TriangleMesh.from_arrays(mesh.vertices, rng.permutation(len(mesh.vertices))[mesh.triangles])
                     for mesh in meshes[:6]]


@pytest.mark.parametrize("seed, chunk, packed", [(0, 1 << 16, True), (1, 1 << 16, False), (2, 7, True),
                                                 (3, 1, False), (4, 64, True)])
def test_edge_tables_are_np_uniques_bit_for_bit(seed, chunk, packed, monkeypatch):
    """Array for array, values and types, on seeded meshes of every kind; read in chunks of a few half-edges or
    many, sorted by the packed sort or, as for keys too large to pack, by ``argsort``."""
    monkeypatch.setattr(topology_module, "EDGE_CHUNK", chunk)
    if not packed:
        monkeypatch.setattr(topology_module, "PACKED_BITS", 0)
    for mesh in seeded_meshes(seed):
        mesh = TriangleMesh(mesh.vertices, mesh.triangles)  # nothing cached
        table, reference = edge_table(mesh), unique_edge_table(mesh)
        for name in ("edges", "triangle_edges", "forward", "uses", "forward_uses"):
            mine, theirs = getattr(table, name), getattr(reference, name)
            assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, name
            assert np.array_equal(mine, theirs), name


def test_keys_sorted_packed_or_too_large_to_pack_keep_equal_keys_in_order():
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 1 << 40, 5000)
    keys[::7] = keys[3]
    for bound in (1 << 40, 1 << 60):  # packed with 13 bits of positions, or beyond 63 bits
        ordered, order = sorted_keys(keys, bound)
        np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
        np.testing.assert_array_equal(ordered, keys[order])


@pytest.mark.parametrize("seed, few", [(0, 16), (1, 16), (2, 0)])
def test_part_meshes_carry_the_topology_their_own_triangles_give(seed, few, monkeypatch):
    """Each loose part's edge table and loose parts, taken from the whole mesh's, equal those computed afresh; the
    parts (shuffled triangles, an open one, a lone triangle, unused vertices) are the submeshes of their labels,
    grouped by a pass per part or by a sort."""
    monkeypatch.setattr(topology_module, "FEW_GROUPS", few)
    rng = np.random.default_rng(seed)
    whole = fx.joined(fx.torus(), fx.box((4, 0, 0), (5, 1, 1)), fx.cup(), fx.uv_sphere())
    triangles = whole.triangles[rng.permutation(len(whole.triangles))][5:]  # an open part too
    vertices = np.vstack([whole.vertices, rng.normal(size=(4, 3)) + 9.0])
    extra = len(whole.vertices) + np.array([[0, 1, 2]])
    shape = TriangleMesh.from_arrays(vertices, np.vstack([triangles, extra]))
    labels, count = loose_parts(shape)
    pieces = part_meshes(shape)
    assert len(pieces) == count == 5
    for k, piece in enumerate(pieces):
        fresh = submesh(shape, labels == k)
        assert np.array_equal(piece.vertices, fresh.vertices) and np.array_equal(piece.triangles, fresh.triangles)
        given, computed = edge_table(piece), edge_table(fresh)
        for name in ("edges", "triangle_edges", "forward", "uses", "forward_uses"):
            assert np.array_equal(getattr(given, name), getattr(computed, name)), name
            assert getattr(given, name).dtype == getattr(computed, name).dtype, name
        assert np.array_equal(loose_parts(piece)[0], loose_parts(fresh)[0]) and loose_parts(piece)[1] == 1
    assert part_meshes(fx.box())[0] is not None and len(part_meshes(fx.box())) == 1


def brute_force_between(lows_a, highs_a, lows_b, highs_b, margin):
    lows_a, highs_a, lows_b, highs_b = lows_a - margin, highs_a + margin, lows_b - margin, highs_b + margin
    hit = np.all((lows_a[:, None] <= highs_b[None]) & (lows_b[None] <= highs_a[:, None]), axis=2)
    return np.argwhere(hit)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("margin", [0.0, 0.05])
def test_two_set_sweep_matches_brute_force(seed, margin):
    rng = np.random.default_rng(seed)
    boxes = []
    for count in rng.integers(1, 200, size=2):
        centres = rng.uniform(-5, 5, size=(count, 3))
        halves = rng.uniform(0.01, 0.6, size=(count, 3)) * rng.uniform(0.2, 5.0, size=3)  # long along one axis
        boxes += [np.round(centres - halves, 1), np.round(centres + halves, 1)]  # shared and touching bounds
    np.testing.assert_array_equal(overlapping_pairs_between(*boxes, margin=margin),
                                  brute_force_between(*boxes, margin))


@pytest.mark.parametrize("seed", range(6))
def test_two_set_grid_matches_brute_force(seed, monkeypatch):
    """The uniform grid (forced here): boxes of every size, some spanning most of the scene, some flat or
    points, shared and touching bounds."""
    monkeypatch.setattr(core.broadphase.sort_and_sweep, "SWEEP_CANDIDATES_PER_BOX", -1)
    rng = np.random.default_rng(seed)
    boxes = []
    for count in rng.integers(1, 300, size=2):
        lows = np.round(rng.uniform(0, 10, size=(count, 3)), 1)
        sizes = rng.exponential(0.4, size=(count, 3)) * (rng.random((count, 3)) < 0.9)  # some flat, some points
        sizes[rng.random(count) < 0.05] += 8.0  # a few boxes span most of the scene
        boxes += [lows, lows + np.round(sizes, 1)]
    for margin in (0.0, 0.05):
        np.testing.assert_array_equal(overlapping_pairs_between(*boxes, margin=margin),
                                      brute_force_between(*boxes, margin))


def test_meshes_meeting_over_a_wide_area_take_the_grid(monkeypatch):
    """Two fine spheres overlapping in a lens: the sweep along any axis lists most triangle pairs in the lens."""
    a, b = fx.uv_sphere(1.0, 48, 64), fx.transformed(fx.uv_sphere(1.0, 48, 64), offset=(1.2, 0.05, 0.0))
    grid, calls = core.broadphase.sort_and_sweep._grid_candidates, []
    monkeypatch.setattr(core.broadphase.sort_and_sweep, "_grid_candidates", lambda *boxes: calls.append(1) or grid(*boxes))
    pairs = overlapping_pairs_between(a.lows, a.highs, b.lows, b.highs)
    assert calls
    np.testing.assert_array_equal(pairs, brute_force_between(a.lows, a.highs, b.lows, b.highs, 0.0))


def test_two_set_sweep_edge_cases():
    low, high = np.zeros((3, 3)), np.ones((3, 3))
    assert overlapping_pairs_between(low, high, low[:1] + 1.0, high[:1] + 1.0).tolist() == [[0, 0], [1, 0], [2, 0]]
    assert overlapping_pairs_between(low, high, np.zeros((0, 3)), np.zeros((0, 3))).shape == (0, 2)
    with pytest.raises(ValueError, match="highs_b"):
        overlapping_pairs_between(low, high, high, low)
