"""Enclosed and overlap volumes of closed meshes against manifold3d's booleans and analytic answers."""

import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh.volume import mesh_volume, overlap_volume
from generators import random_rotation

ALONG_Y = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])  # turns the z axis onto y

PAIRS = {
    "rod through torus": (fx.torus(2, 0.5, 32, 16), fx.transformed(fx.rod(0.2, -2, 2, 16), ALONG_Y, (2.1, 0, 0.05))),
    "ring pierced by a pin": (fx.torus(2, 0.5, 32, 16), fx.transformed(fx.rod(0.15, -1, 1, 12), offset=(2.0, 0.1, 0))),
    "chain links pressed together": (fx.chain_link(), fx.transformed(fx.chain_link(), ALONG_Y.T, (2.7, 0.02, 0.03))),
    "chain links hanging free": (fx.chain_link(), fx.transformed(fx.chain_link(), ALONG_Y.T, (2.0, 0.0, 0.0))),
    "L-bracket vs block": (fx.l_bracket(), fx.box((0.5, 0.5, -0.5), (1.5, 1.5, 0.5))),
    "L-bracket vs L-bracket": (fx.l_bracket(), fx.transformed(fx.l_bracket(), fx.rotation_z(0.4), (0.3, 0.2, 0.1))),
    "nested": (fx.uv_sphere(2.0), fx.transformed(fx.torus(0.8, 0.2), random_rotation(np.random.default_rng(1)))),
    "ball in a cup": (fx.cup(), fx.transformed(fx.uv_sphere(0.6), offset=(0.0, 0.0, 1.0))),
    "ball through a cup wall": (fx.cup(), fx.transformed(fx.uv_sphere(0.6), offset=(0.5, 0.1, 1.0))),
    "rod in a hole": (fx.block_with_hole(), fx.transformed(fx.rod(0.39, -1, 2, 16), offset=(0.005, 0, 0))),
    "rod rubbing a hole": (fx.block_with_hole(), fx.transformed(fx.rod(0.39, -1, 2, 16), offset=(0.05, 0.02, 0))),
    "walls overlapping end to end": (fx.wall_with_door(), fx.transformed(fx.wall_with_door(), offset=(2.0, 0, 0))),
    "two loose parts": (fx.joined(fx.box(), fx.box((2, 0, 0), (3, 1, 1))), fx.box((0.5, 0.2, 0.2), (2.5, 0.8, 0.8))),
    "disjoint": (fx.torus(), fx.transformed(fx.uv_sphere(), offset=(10.0, 0, 0))),
    # Only the triangles near the other's box take part: a small cap of each fine ball, a corner's faces.
    "fine balls just overlapping": (fx.uv_sphere(1.0, 48, 96), fx.transformed(fx.uv_sphere(1.0, 48, 96),
                                                                              offset=(1.9, 0.05, 0.02))),
    "box corner into a fine ball": (fx.uv_sphere(1.0, 48, 96), fx.transformed(fx.box(), random_rotation(
        np.random.default_rng(4)), (0.8, 0.1, -0.2))),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_overlap_matches_manifold3d(name):
    a, b = PAIRS[name]
    volume, centroid = overlap_volume(a, b)
    reference, reference_centroid = fx.manifold_overlap(a, b)
    scale = max(mesh_volume(a), mesh_volume(b))
    assert volume == pytest.approx(reference, abs=1e-11 * scale)
    if reference_centroid is None:
        assert volume == 0.0 and centroid is None
    else:
        np.testing.assert_allclose(centroid, reference_centroid, atol=1e-9)
    swapped, swapped_centroid = overlap_volume(b, a)
    assert swapped == pytest.approx(volume, abs=1e-12 * scale)
    if centroid is not None:
        np.testing.assert_allclose(swapped_centroid, centroid, atol=1e-9)


def test_the_cases_are_what_their_names_say():
    assert overlap_volume(*PAIRS["nested"])[0] == pytest.approx(mesh_volume(PAIRS["nested"][1]), rel=1e-12)
    assert overlap_volume(*PAIRS["ball in a cup"])[0] == 0.0
    assert overlap_volume(*PAIRS["chain links hanging free"])[0] == 0.0
    assert overlap_volume(*PAIRS["chain links pressed together"])[0] > 0.0
    assert overlap_volume(*PAIRS["walls overlapping end to end"])[0] == pytest.approx(1.0 * 3.0 * 0.2, rel=1e-12)


@pytest.mark.parametrize("name", ["sphere", "torus", "cup", "block_with_hole", "chain_link", "wall"])
def test_mesh_volume_matches_manifold3d_and_flips_inside_out(name):
    shape = {"sphere": fx.uv_sphere(), "torus": fx.torus(), "cup": fx.cup(), "block_with_hole": fx.block_with_hole(),
             "chain_link": fx.chain_link(), "wall": fx.wall_with_door()}[name]
    assert mesh_volume(shape) == pytest.approx(fx.manifold(shape).volume(), rel=1e-12)
    inside_out = fx.mesh(shape.vertices, shape.triangles[:, ::-1])
    assert mesh_volume(inside_out) == pytest.approx(-mesh_volume(shape), rel=1e-12)


def box_overlap(low_a, high_a, low_b, high_b):
    sides = np.clip(np.minimum(high_a, high_b) - np.maximum(low_a, low_b), 0, None)
    return float(np.prod(sides))


@pytest.mark.parametrize("seed", range(40))
def test_boxes_on_an_integer_grid_share_faces_edges_and_corners(seed):
    # Small integer boxes: most pairs have coincident faces, edges or corners, facing either way.
    rng = np.random.default_rng(seed)
    lows = rng.integers(0, 3, size=(2, 3)).astype(float)
    highs = lows + rng.integers(1, 3, size=(2, 3))
    a, b = fx.box(lows[0], highs[0]), fx.box(lows[1], highs[1])
    expected = box_overlap(lows[0], highs[0], lows[1], highs[1])
    volume, centroid = overlap_volume(a, b)
    assert volume == pytest.approx(expected, abs=1e-12)
    if expected > 0:
        low, high = np.maximum(lows[0], lows[1]), np.minimum(highs[0], highs[1])
        np.testing.assert_allclose(centroid, 0.5 * (low + high), atol=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_rotated_grid_boxes_whose_shared_faces_are_coplanar_only_up_to_rounding(seed):
    rng = np.random.default_rng(100 + seed)
    rotation, offset = random_rotation(rng), rng.uniform(-100, 100, size=3)
    lows = rng.integers(0, 3, size=(2, 3)).astype(float)
    highs = lows + rng.integers(1, 3, size=(2, 3))
    a, b = (fx.transformed(fx.box(lows[k], highs[k]), rotation, offset) for k in range(2))
    assert overlap_volume(a, b)[0] == pytest.approx(box_overlap(lows[0], highs[0], lows[1], highs[1]), abs=1e-11)


@pytest.mark.parametrize("seed", range(8))
def test_meshes_snapped_to_a_coarse_grid_match_manifold3d(seed):
    # Snapping puts many vertices exactly on the other mesh's planes, edges and vertices.
    rng = np.random.default_rng(seed)
    a = fx.transformed(fx.torus(1.5, 0.5, 16, 8), random_rotation(rng))
    b = fx.transformed(fx.uv_sphere(1.0, 6, 8), random_rotation(rng), rng.uniform(-1.5, 1.5, size=3))
    a, b = (fx.mesh(np.round(m.vertices * 8) / 8, m.triangles) for m in (a, b))
    assert overlap_volume(a, b)[0] == pytest.approx(fx.manifold_overlap(a, b)[0], abs=1e-11)


def test_identical_and_face_sharing_boxes():
    assert overlap_volume(fx.box(), fx.box()) == (pytest.approx(1.0), pytest.approx(np.full(3, 0.5)))
    for offset in ([1, 0, 0], [-1, 0, 0], [0, 1, 0], [1, 1, 0], [1, 1, 1]):
        assert overlap_volume(fx.box(), fx.transformed(fx.box(), offset=offset))[0] == 0.0
    rotated = random_rotation(np.random.default_rng(3))
    a, b = (fx.transformed(fx.box(), rotated, (5.0, -2.0, 1.0)),
            fx.transformed(fx.box((0.5, 0, 0), (1.5, 1, 1)), rotated, (5.0, -2.0, 1.0)))
    assert overlap_volume(a, b)[0] == pytest.approx(0.5, abs=1e-12)  # rotated: coplanar only up to rounding


@pytest.mark.parametrize("seed", range(6))
def test_random_sphere_and_torus_poses(seed):
    rng = np.random.default_rng(seed)
    a = fx.transformed(fx.torus(1.5, 0.4, 24, 12), random_rotation(rng))
    b = fx.transformed(fx.uv_sphere(0.8, 10, 14), random_rotation(rng), rng.uniform(-1.5, 1.5, size=3))
    volume, centroid = overlap_volume(a, b)
    reference, reference_centroid = fx.manifold_overlap(a, b)
    assert volume == pytest.approx(reference, abs=1e-12)
    if reference > 1e-9:
        np.testing.assert_allclose(centroid, reference_centroid, atol=1e-9)


def test_far_from_the_origin():
    offset = np.array([1e4, -2e4, 3e4])
    a, b = PAIRS["rod through torus"]
    near = overlap_volume(a, b)[0]
    far = overlap_volume(fx.transformed(a, offset=offset), fx.transformed(b, offset=offset))[0]
    assert far == pytest.approx(near, rel=1e-8)


@pytest.mark.parametrize("split", [1, 100, 500])
def test_the_volume_with_caps_is_the_joined_meshs_bit_for_bit(split):
    """``mesh_volume(mesh, caps, cap_vertices)``: the triangles after ``split`` given as caps' corners, on vertices
    of their own (moved far off, so they decide the centre), gives the very number of the mesh joined."""
    shape = fx.transformed(fx.torus(), offset=(1e3, -2.0, 0.5))
    extra = shape.vertices[:40] + 7.0
    vertices = np.concatenate([shape.vertices, extra])
    triangles = shape.triangles.copy()
    triangles[split:split + 40, 0] = len(shape.vertices) + np.arange(40)
    first = fx.mesh(shape.vertices, triangles[:split])
    volume = mesh_volume(first, vertices[triangles[split:]], extra)
    assert volume == mesh_volume(fx.mesh(vertices, triangles)) != 0.0
    assert volume != mesh_volume(first, vertices[triangles[split:]])  # (the extra vertices move the centre)
