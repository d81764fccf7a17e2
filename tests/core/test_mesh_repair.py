"""Welding and repair (``core.mesh.weld``, ``core.mesh.repair``) against independent references: numpy's row
grouping and scipy's k-d tree for welding, manifold3d's merged meshes for volumes, and the meshes as built before
they were split, cracked, flipped or holed."""

import manifold3d
import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

import core.mesh.repair as repair_module
import mesh_fixtures as fx
from core.mesh.repair import APPROXIMATE, CRACK_TOLERANCE, EXACT, NONE, WELD_TOLERANCE, repaired
from core.mesh.solid import CONVEX, Solid
from core.mesh.volume import mesh_volume
from core.mesh.weld import exact_representatives, have_exact_duplicates, near_representatives

SHAPES = {"box": fx.box(), "sphere": fx.uv_sphere(), "torus": fx.torus(), "cup": fx.cup(),
          "l_bracket": fx.l_bracket(), "chain_link": fx.chain_link()}


def split_per_face(shape):
    """Every triangle on its own three vertices, as glTF and STL store flat-shaded meshes."""
    vertices = shape.vertices[shape.triangles].reshape(-1, 3)
    return fx.mesh(vertices, np.arange(len(vertices)).reshape(-1, 3))


def merged_volume(shape) -> float:
    """manifold3d's volume of the mesh with coincident vertices merged (its own welding)."""
    mesh = manifold3d.Mesh64(vert_properties=np.array(shape.vertices), tri_verts=shape.triangles.astype(np.uint64))
    mesh.merge()
    return manifold3d.Manifold(mesh).volume()


def components(count, first, second):
    return connected_components(coo_matrix((np.ones(len(first)), (first, second)), shape=(count, count)))[1]


@pytest.mark.parametrize("seed", range(4))
def test_exact_welding_groups_bit_identical_rows(seed):
    rng = np.random.default_rng(seed)
    points = rng.integers(0, 4, size=(3000, 3)).astype(float) * 0.25
    points[rng.random(3000) < 0.1] *= -0.0  # -0.0 is the same place as 0.0
    representative = exact_representatives(points)
    _, reference = np.unique(points + 0.0, axis=0, return_inverse=True)
    reference = reference.reshape(-1)
    np.testing.assert_array_equal(reference[representative], reference)  # welded only onto equal rows
    assert len(np.unique(representative)) == len(np.unique(reference))  # and every equal row welded
    first_of_group = np.full(reference.max() + 1, len(points))
    np.minimum.at(first_of_group, reference, np.arange(len(points)))
    np.testing.assert_array_equal(representative, first_of_group[reference])  # onto the smallest index


def test_exact_welding_of_lathe_and_grid_positions_needs_no_fallback(monkeypatch):
    """Positions made by turning a profile (a UV sphere split per face) or on a grid share low bits and mirrored
    values; their hash keys must still differ (the exact fallback for colliding keys is far slower)."""
    import core.mesh.weld as weld

    def collided(bits):
        raise AssertionError("two different positions shared a hash key")

    monkeypatch.setattr(weld, "_bit_equal_groups", collided)
    grid = np.stack(np.meshgrid(*[np.arange(40) * 0.1] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    for points in (split_per_face(fx.uv_sphere(1.0, 120, 120)).vertices, np.concatenate([grid, grid, -grid])):
        representative = exact_representatives(points)
        _, reference = np.unique(points + 0.0, axis=0, return_inverse=True)
        assert len(np.unique(representative)) == reference.max() + 1
        np.testing.assert_array_equal(reference.reshape(-1)[representative], reference.reshape(-1))


def test_clouds_with_bit_identical_rows_are_told_together_as_each_alone(monkeypatch):
    import core.mesh.weld as weld
    rng = np.random.default_rng(5)
    clouds = rng.normal(size=(300, 40, 3))
    clouds[:100, 7] = clouds[:100, 31]  # a repeated row
    clouds[100:150, 3, 1] = np.nextafter(clouds[100:150, 9, 1], np.inf)  # a row one ulp from another
    clouds[100:150, 3, [0, 2]] = clouds[100:150, 9, [0, 2]]
    clouds[150:200, 2], clouds[150:200, 5] = (0.0, -0.0, 1.0), (-0.0, 0.0, 1.0)  # the same place
    found = have_exact_duplicates(clouds)
    expected = [not (exact_representatives(cloud) == np.arange(40)).all() for cloud in clouds]
    assert found.tolist() == expected and found.sum() == 150
    real = weld._mixed
    monkeypatch.setattr(weld, "_mixed", lambda values: real(values) & np.uint64(7))  # keys collide all the time
    assert have_exact_duplicates(clouds).tolist() == expected
    assert have_exact_duplicates(clouds[:, :1]).tolist() == [False] * 300


@pytest.mark.parametrize("seed", range(4))
def test_near_welding_joins_every_pair_within_the_tolerance_and_none_far_apart(seed):
    rng = np.random.default_rng(seed)
    tolerance = 1e-3
    centres = rng.random((400, 3))
    points = np.concatenate([centres, centres[:200] + rng.uniform(-0.9, 0.9, (200, 3)) * tolerance,
                             centres[:50] + rng.uniform(-5, 5, (50, 3)) * tolerance])
    candidates = np.arange(len(points))
    representative = near_representatives(points, candidates, tolerance)
    tree = cKDTree(points)
    close = np.array(sorted(tree.query_pairs(tolerance * (1 - 1e-12), p=np.inf)))
    assert (representative[close[:, 0]] == representative[close[:, 1]]).all()
    # every welded group is a chain of neighbours within twice the tolerance along every axis
    reach = np.array(sorted(tree.query_pairs(2 * tolerance, p=np.inf)))
    chains = components(len(points), reach[:, 0], reach[:, 1])
    assert (chains[representative] == chains).all()
    assert (representative <= np.arange(len(points))).all()


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_mesh_split_per_face_is_closed_again_with_its_volume(name):
    shape = SHAPES[name]
    split = split_per_face(shape)
    repair = repaired(split)
    assert repair.certainty == EXACT and repair.open_edges == 0
    assert len(repair.mesh.vertices) == len(shape.vertices)
    assert repair.welded_vertices == len(split.vertices) - len(shape.vertices)
    assert mesh_volume(repair.mesh) == pytest.approx(merged_volume(split), rel=1e-12)
    assert Solid(split).method == Solid(shape).method


def test_a_split_cube_is_convex_and_its_vertices_are_its_own():
    split = split_per_face(fx.box())
    solid = Solid(split)
    assert solid.method == CONVEX and solid.volume_certainty == EXACT
    original = {tuple(p) for p in split.vertices}
    assert {tuple(p) for p in solid.mesh.vertices} <= original


def test_a_crack_of_rounding_is_welded_and_a_wider_one_is_capped():
    sphere = fx.uv_sphere(rings=12, segments=16)
    split = split_per_face(sphere)
    vertices = split.vertices.copy()
    seam = np.abs(vertices[:, 1]) < 1e-12  # the meridian at angle 0 (y = 0, x > 0) and the poles
    seam &= vertices[:, 0] > 0
    first_side = seam & (np.arange(len(vertices)) % 2 == 0)
    vertices[first_side, 1] += 0.2 * WELD_TOLERANCE * 2.0  # a fraction of the tolerance (size 2)
    repair = repaired(fx.mesh(vertices, split.triangles))
    assert repair.certainty == EXACT and repair.open_edges == 0
    assert mesh_volume(repair.mesh) == pytest.approx(mesh_volume(sphere), rel=1e-6)
    vertices[first_side, 1] += 100 * WELD_TOLERANCE * 2.0  # far beyond it: a thin slit, capped
    repair = repaired(fx.mesh(vertices, split.triangles))
    assert repair.certainty == APPROXIMATE and repair.holes >= 1
    assert abs(mesh_volume(repair.mesh) - mesh_volume(sphere)) <= repair.volume_error


@pytest.mark.parametrize("name", ["sphere", "torus", "chain_link"])
def test_a_missing_face_is_capped_within_the_stated_bound(name):
    shape = SHAPES[name]
    rng = np.random.default_rng(3)
    keep = np.ones(len(shape.triangles), dtype=bool)
    keep[rng.choice(len(shape.triangles), 2, replace=False)] = False
    repair = repaired(fx.mesh(shape.vertices, shape.triangles[keep]))
    assert repair.certainty == APPROXIMATE and repair.open_edges > 0 and repair.holes in (1, 2)
    assert 0.0 < repair.volume_error < 0.05 * mesh_volume(shape)
    assert abs(mesh_volume(repair.mesh) - merged_volume(shape)) <= repair.volume_error


def test_turned_faces_duplicates_and_degenerate_faces_are_counted_and_left_out():
    shape = SHAPES["torus"]
    triangles = shape.triangles.copy()
    turned = np.arange(0, len(triangles), 7)
    triangles[turned] = triangles[turned, ::-1]
    degenerate = np.array([[0, 0, 5], [3, 9, 3]])
    duplicates = triangles[[10, 11, 12]]
    repair = repaired(fx.mesh(shape.vertices, np.concatenate([triangles, degenerate, duplicates])))
    assert repair.certainty == EXACT
    assert (repair.turned_faces, repair.degenerate_faces, repair.duplicate_faces) == (len(turned), 2, 3)
    assert abs(mesh_volume(repair.mesh)) == pytest.approx(merged_volume(shape), rel=1e-12)
    # the same with vertex numbers past 2^21 (duplicates found by rows, not by packed keys): the same repair
    spare = np.random.default_rng(0).uniform(shape.vertices.min(axis=0), shape.vertices.max(axis=0), (1 << 21, 3))
    far = fx.mesh(np.vstack([spare, shape.vertices]), np.concatenate([triangles, degenerate, duplicates]) + (1 << 21))
    renumbered = repaired(far)
    assert (renumbered.turned_faces, renumbered.degenerate_faces, renumbered.duplicate_faces) == (len(turned), 2, 3)
    assert np.array_equal(renumbered.mesh.triangles - (1 << 21), repair.mesh.triangles)


def test_open_surfaces_have_no_volume():
    box = SHAPES["box"]
    plane = fx.mesh([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], [[0, 1, 2], [0, 2, 3]])
    cup_sheet = fx.mesh(box.vertices, box.triangles[np.abs(box.corners[:, :, 2] - 1.0).max(axis=1) > 0])  # no lid
    for surface in (plane, cup_sheet):
        repair = repaired(surface)
        assert repair.certainty == NONE and repair.volume_error == 0.0 and repair.open_edges > 0
        assert Solid(surface).volume_certainty == NONE and not Solid(surface).closed


def test_parts_joined_along_an_edge_bound_their_volume():
    a, b = fx.box((0, 0, 0), (1, 1, 1)), fx.box((1, 1, 0), (2, 2, 1))  # sharing the edge x = y = 1
    repair = repaired(split_per_face(fx.joined(a, b)))
    assert repair.certainty == EXACT and repair.non_manifold_edges == 0  # counted only when repair goes on
    assert mesh_volume(repair.mesh) == pytest.approx(2.0, rel=1e-12)
    assert Solid(split_per_face(fx.joined(a, b))).closed


def volume_about(mesh, origin) -> float:
    """The divergence theorem's volume of a mesh taken from ``origin``: for an open mesh, the volume it encloses
    with any missing surface that lies in a plane through ``origin`` (that surface adds nothing from there)."""
    c = mesh.corners - np.asarray(origin, dtype=float)
    return float(np.einsum("ij,ij->i", c[:, 0], np.cross(c[:, 1], c[:, 2])).sum() / 6.0)


def cracked_can(gap: float, segments=48):
    """A closed can (radius 1, height 2) whose lid was modelled apart, as a T-junction crack: its rim has the
    wall's corners and the midpoints of every other edge, all moved ``gap`` towards the axis, so the wall's rim and
    the lid's are the two sides of a circular crack that no vertex of one meets a vertex of the other across."""
    can = fx.revolve([(0.0, 0.0), (1.0, 0.0), (1.0, 2.0), (0.0, 2.0)], segments)
    keep = np.abs(can.corners[:, :, 2] - 2.0).max(axis=1) > 0.0  # the can without its lid
    angles = 2 * np.pi * np.arange(segments) / segments
    wall = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    rim = [point for k in range(segments)
           for point in ([wall[k]] if k % 2 else [wall[k], 0.5 * (wall[k] + wall[(k + 1) % segments])])]
    rim = np.c_[(1.0 - gap) * np.array(rim), np.full(len(rim), 2.0)]
    lid = fx.mesh(np.concatenate([[[0.0, 0.0, 2.0]], rim]), [[0, 1 + k, 1 + (k + 1) % len(rim)] for k in range(len(rim))])
    return fx.joined(fx.mesh(can.vertices, can.triangles[keep]), lid)


@pytest.mark.parametrize("gap", [3 * WELD_TOLERANCE, 0.2 * CRACK_TOLERANCE])
def test_the_two_sides_of_a_crack_are_capped_as_one_hole_within_the_stated_bound(gap):
    """A lid meeting its wall with other vertices (no two rims' vertices in one place, so nothing welds): the
    crack's two rims are one hole; its volume is the can's with the crack's flat strip filled, within the bound."""
    cracked = cracked_can(gap * 2.0)  # the can's size (its box's largest side) is 2
    repair = repaired(cracked)
    assert repair.certainty == APPROXIMATE and repair.holes == 1 and repair.open_edges == 48 + 72  # none welded
    reference = volume_about(cracked, (0.0, 0.0, 2.0))  # the strip lies in the plane z = 2
    assert abs(mesh_volume(repair.mesh) - reference) <= repair.volume_error < 1e-3 * reference
    assert Solid(cracked).closed and Solid(cracked).volume_certainty == APPROXIMATE


def test_rims_further_apart_than_a_crack_are_holes_of_their_own():
    """A can whose lid is 10 times the crack tolerance short of the wall: two holes, each as wide as the lid,
    together too big to cap: an open surface."""
    repair = repaired(cracked_can(10 * CRACK_TOLERANCE * 2.0))
    assert repair.certainty == NONE and repair.open_edges == 48 + 72


def test_a_band_thinner_than_a_crack_is_no_crack():
    """A square band of walls only, lower than the crack tolerance: its rims come within it of each other, but the
    strip between them is the band's whole top and bottom, far more than its volume: an open surface."""
    height = 0.1 * CRACK_TOLERANCE
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    vertices = np.concatenate([np.c_[corners, np.zeros(4)], np.c_[corners, np.full(4, height)]])
    walls = [[k, (k + 1) % 4, 4 + (k + 1) % 4] for k in range(4)] + [[k, 4 + (k + 1) % 4, 4 + k] for k in range(4)]
    repair = repaired(fx.mesh(vertices, walls))
    assert repair.certainty == NONE and repair.open_edges == 8


@pytest.mark.parametrize("extra", ["none", "repeated", "turned twin"])
def test_the_repeated_faces_sort_is_skipped_only_when_no_face_can_repeat(monkeypatch, extra):
    """An open torus (two faces missing, so the repair goes on past the exact weld), with a face added again the
    same way round, turned over, or not: the repair is the same field by field whether the edge table's shortcut
    (no edge used twice one way, so no repeated face) or the sort decides, and the repeated face is dropped."""
    shape = SHAPES["torus"]
    triangles = shape.triangles[2:]
    added = {"none": triangles[:0], "repeated": triangles[5:6], "turned twin": triangles[5:6, ::-1]}[extra]
    mesh = fx.mesh(shape.vertices, np.concatenate([triangles, added]))
    quick = repaired(mesh)
    monkeypatch.setattr(repair_module, "_repeats_possible", lambda table: True)
    sorted_out = repaired(fx.mesh(shape.vertices, np.concatenate([triangles, added])))
    assert quick.duplicate_faces == sorted_out.duplicate_faces == (1 if extra == "repeated" else 0)
    assert np.array_equal(quick.mesh.triangles, sorted_out.mesh.triangles)
    assert np.array_equal(quick.mesh.vertices, sorted_out.mesh.vertices)
    assert (quick.certainty, quick.volume_error, quick.open_edges, quick.holes, quick.caps) == (
        sorted_out.certainty, sorted_out.volume_error, sorted_out.open_edges, sorted_out.holes, sorted_out.caps)
