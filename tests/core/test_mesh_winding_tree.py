"""``core.mesh.winding_tree``: the generalized winding number by the triangle tree, checked against every triangle's
solid angle at every point (``solid_angle_windings``) on seeded meshes with holes: within its stated bound
everywhere, and never on the wrong side of 1/2 once refined (``inside.decided_windings``)."""

import numpy as np
import pytest

import core.mesh.inside as inside
import core.mesh.winding_tree as winding_tree
import mesh_fixtures as fx
from core.mesh.bvh import TriangleBVH
from core.mesh.inside import decided_windings, solid_angle_windings
from core.mesh.winding_tree import tree_windings, winding_moments


def holed(shape, count: int, seed: int):
    """``shape`` with ``count`` seeded random triangles removed (a nearly closed mesh), and points just off the
    holes' middles (where the winding number jumps from near 0 to near 1)."""
    rng = np.random.default_rng(seed)
    removed = rng.choice(len(shape.triangles), count, replace=False)
    mouths = np.repeat(shape.corners[removed].mean(axis=1), 10, axis=0) + rng.normal(scale=1e-4, size=(10 * count, 3))
    return fx.mesh(shape.vertices, np.delete(shape.triangles, removed, axis=0)), mouths


def bowl():
    """A sphere's lower half, an open sheet, and points a hair off the disc its rim spans (winding number within
    about 1e-8 of 1/2)."""
    sphere = fx.uv_sphere(1.0, 24, 32)
    mesh = fx.mesh(sphere.vertices, sphere.triangles[sphere.corners[:, :, 2].max(axis=1) <= 0.0])
    rng = np.random.default_rng(4)
    angle, radius = rng.uniform(0, 2 * np.pi, 100), 0.9 * np.sqrt(rng.uniform(0, 1, 100))
    return mesh, np.column_stack([radius * np.cos(angle), radius * np.sin(angle), rng.normal(scale=1e-7, size=100)])


def open_edges(mesh) -> np.ndarray:
    """(E, 2) the edges used by one triangle only."""
    edges = np.sort(mesh.triangles[:, [[0, 1], [1, 2], [2, 0]]].reshape(-1, 2), axis=1)
    unique, counts = np.unique(edges, axis=0, return_counts=True)
    return unique[counts == 1]


MESHES = {
    "sphere": lambda: holed(fx.uv_sphere(1.0, 24, 32), 12, 1),
    "torus": lambda: holed(fx.torus(2.0, 0.5, 48, 16), 20, 2),
    "chain link": lambda: holed(fx.chain_link(), 6, 3),
    "bowl": bowl,
}


@pytest.mark.parametrize("name", sorted(MESHES))
@pytest.mark.parametrize("ratio", [1.5, 3.0, winding_tree.OPENING_RATIO])
def test_the_exact_winding_number_lies_within_the_stated_bound(name, ratio):
    mesh, _mouths = MESHES[name]()
    low, high = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    points = np.random.default_rng(7).uniform(low - 0.5, high + 0.5, size=(1500, 3))
    windings, bounds = tree_windings(TriangleBVH.build(mesh), points, ratio)
    exact = solid_angle_windings(mesh, points)
    assert (np.abs(windings - exact) <= bounds).all()
    assert np.abs(windings - exact).max() > 0.0  # some nodes were approximated
    if ratio == winding_tree.OPENING_RATIO:
        assert np.median(bounds) < 0.2  # tight enough to decide most points at once


def test_a_far_triangle_s_error_falls_with_the_fourth_power_of_the_distance():
    """One triangle: the series' error at distance d stays within the bound 3 A R² / (d - R)⁴ / 4π, and doubling
    the distance divides it by about 16 (the first term left out is of order R² / d⁴)."""
    corners = np.random.default_rng(0).normal(size=(3, 3)) * 0.3
    bvh = TriangleBVH.build(fx.mesh(corners, np.array([[0, 1, 2]])))
    direction = np.array([1.0, 0.3, -0.2])
    errors = []
    for distance in (4.0, 8.0, 16.0):
        point = (distance * direction)[None, :]
        windings, bounds = tree_windings(bvh, point, 1.01)
        errors.append(abs(windings[0] - solid_angle_windings(bvh.mesh, point)[0]))
        assert errors[-1] <= bounds[0]
    assert 10.0 < errors[0] / errors[1] < 25.0 and 10.0 < errors[1] / errors[2] < 25.0


def test_the_root_s_moments_are_the_whole_mesh_s():
    """The root's area is the mesh's, and a closed mesh's vector areas add up to nothing."""
    sphere = fx.uv_sphere(1.0, 16, 24)
    moments = winding_moments(TriangleBVH.build(sphere))
    corners = sphere.corners
    areas = 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]), axis=1)
    assert moments.areas[0] == pytest.approx(areas.sum(), rel=1e-12)
    assert np.abs(moments.dipoles[0]).max() < 1e-12


@pytest.mark.parametrize("fine_ratio", [inside.FINE_OPENING_RATIO, 1.5])
@pytest.mark.parametrize("name", sorted(MESHES))
def test_refined_windings_decide_every_point_as_the_exact_ones(name, fine_ratio, monkeypatch):
    """Points everywhere, near the holes' rims and just off their middles: the refined values are on the same side
    of 1/2 as the exact ones. With a second pass no finer than the first, the bowl's points a hair off its rim's
    disc are left to the exact pass (the default second pass opens every node of so small a mesh near them)."""
    mesh, mouths = MESHES[name]()
    low, high = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    rims = mesh.vertices[np.unique(open_edges(mesh))]
    rng = np.random.default_rng(8)
    scattered = np.concatenate([rng.uniform(low - 0.3, high + 0.3, size=(1500, 3)),
                                rims[rng.choice(len(rims), 200)] + rng.normal(scale=0.02, size=(200, 3))])
    points = np.concatenate([scattered, mouths])
    exact = solid_angle_windings(mesh, points)
    exact_passes = []
    original = inside.solid_angle_windings
    monkeypatch.setattr(inside, "solid_angle_windings", lambda *args: exact_passes.append(1) or original(*args))
    monkeypatch.setattr(inside, "FINE_OPENING_RATIO", fine_ratio)
    decided = decided_windings(TriangleBVH.build(mesh), points)
    clear = np.abs(exact - 0.5) > 1e-9  # not within rounding of the threshold itself
    np.testing.assert_array_equal((decided > 0.5)[clear], (exact > 0.5)[clear])
    assert ((exact > 0.5) & clear).sum() > 50 and ((exact < 0.5) & clear).sum() > 50
    if name == "bowl":
        assert bool(exact_passes) == (fine_ratio < winding_tree.OPENING_RATIO)


def test_big_point_sets_get_a_tree_and_the_same_decisions(monkeypatch):
    """``winding_numbers`` builds a tree when points x triangles pass ``TREE_TERMS``: the decisions are those of
    every triangle at every point."""
    mesh, _mouths = MESHES["sphere"]()
    points = np.random.default_rng(9).uniform(-1.2, 1.2, size=(800, 3))
    brute = inside.winding_numbers(mesh, points)
    built = []
    monkeypatch.setattr(inside, "TREE_TERMS", 1000)
    original = TriangleBVH.build
    monkeypatch.setattr(TriangleBVH, "build", lambda shape: built.append(1) or original(shape))
    with_tree = inside.winding_numbers(mesh, points)
    assert built
    np.testing.assert_array_equal(with_tree > 0.5, brute > 0.5)


def test_pairs_are_taken_in_chunks_with_the_same_answer(monkeypatch):
    mesh, _mouths = MESHES["torus"]()
    bvh = TriangleBVH.build(mesh)
    points = np.random.default_rng(10).uniform(-3, 3, size=(300, 3)) * [1, 1, 0.3]
    whole = tree_windings(bvh, points)
    monkeypatch.setattr(winding_tree, "CHUNK_PAIRS", 64)
    chunked = tree_windings(bvh, points)
    np.testing.assert_allclose(chunked[0], whole[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(chunked[1], whole[1], rtol=1e-12)


def test_an_opening_ratio_of_one_or_less_is_refused():
    with pytest.raises(ValueError, match="opening_ratio"):
        tree_windings(TriangleBVH.build(fx.box()), np.zeros((1, 3)), 1.0)
