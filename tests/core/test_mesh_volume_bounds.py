"""Bounds on overlap volumes when the surfaces' exact cut gives up (``volume_bounds``): objects whose parts cross
themselves (two pieces fused by a tube, ``generators.tube_joined``), with and without other parts, against boxes and
spheres kept clear of the tube, on seeded scenes. Reference: manifold3d's booleans of the pieces. The cut is made
to give up (as it does near degenerate triple crossings) by replacing it with one that answers None."""

import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh import Solid
from core.mesh.contact import volumes
from core.mesh.volume import mesh_volume
from core.mesh.volume_bounds import enclosed_bound, negative_bound, overlap_bounds
from test_mesh_self_crossing_overlap import PIECES, fused as fused_surface
from test_third_party_meshes import merged_manifold, placed

SLACK = 1e-9


def fused_object(rng):
    """Pieces fused into one surface crossing itself (``test_mesh_self_crossing_overlap.PIECES``: the tube crosses
    neither), sometimes with a sphere part beside it; with manifold3d's union of the pieces and their box (the tube
    lies outside it in x and above it) and the tube's volume."""
    first, second = PIECES[sorted(PIECES)[rng.integers(len(PIECES))]]
    fused = fused_surface(first, second)
    reference = fx.manifold(first) + fx.manifold(second)
    tube = mesh_volume(fused) - fx.manifold(first).volume() - fx.manifold(second).volume()
    low = np.minimum(first.vertices.min(axis=0), second.vertices.min(axis=0))
    high = np.maximum(first.vertices.max(axis=0), second.vertices.max(axis=0))
    if rng.random() < 0.5:
        radius = rng.uniform(0.1, 0.2)  # inside the pieces' box: clear of the tube
        extra = fx.transformed(fx.uv_sphere(radius, 8, 12), offset=rng.uniform(low + radius, high - radius))
        fused, reference = fx.joined(fused, extra), reference + fx.manifold(extra)
    return Solid(fused, name="fused"), reference, low, high, tube


def fused_scene(rng):
    """A fused object and a box or sphere inside its pieces' x and z range (so clear of the tube), with manifold3d's
    overlap of the two."""
    solid, reference, low, high, _ = fused_object(rng)
    span = high - low
    centre = rng.uniform(low + 0.3 * span, high - 0.3 * span)
    half = rng.uniform(0.05, 0.25, 3) * span
    if rng.random() < 0.5:
        other = fx.box(np.maximum(centre - half, low + 1e-3), np.minimum(centre + half, high - 1e-3))
    else:
        other = fx.transformed(fx.uv_sphere(float(min(half.min(), *(centre - low), *(high - centre))) * 0.99, 10, 14),
                               offset=centre)
    return solid, Solid(other, name="other"), (reference ^ fx.manifold(other)).volume()


def given_up(*_args, **_kwargs):
    return None


@pytest.mark.parametrize("seed", range(8))
def test_overlap_with_a_part_crossing_itself_lies_within_its_bounds_and_value_plus_or_minus_error(seed, monkeypatch):
    solid, other, expected = fused_scene(np.random.default_rng(seed))
    assert solid.own_crossings[0].size  # the fused part crosses itself
    low, high = np.maximum(solid.bounds[0], other.bounds[0]), np.minimum(solid.bounds[1], other.bounds[1])
    least, most = overlap_bounds(solid, other, low, high)
    assert least - SLACK * most <= expected <= most * (1 + SLACK)
    box = float(np.prod(np.maximum(high - low, 0.0)))
    assert most <= box
    monkeypatch.setattr(volumes, "cut_overlap", given_up)
    for a, b in ((solid, other), (other, solid)):
        volume, _, error = volumes.pair_volume(a, b)
        assert abs(volume - expected) <= error * (1 + SLACK) + 1e-15
        assert error <= box


@pytest.mark.parametrize("seed", range(4))
def test_a_part_crossing_itself_inside_a_box_is_bounded_tighter_than_the_common_box(seed, monkeypatch):
    """As the magneto finger imported into Blender, fully inside a robot's base: the common box is the fused
    object's own box; its cones bound it much tighter."""
    solid, reference, _, _, tube = fused_object(np.random.default_rng(seed))
    inner_low, inner_high = solid.bounds
    box = Solid(fx.box(inner_low - 0.5, inner_high + 0.5))
    expected = reference.volume() + tube  # all of it is inside the box
    monkeypatch.setattr(volumes, "cut_overlap", given_up)
    volume, _, error = volumes.pair_volume(box, solid)
    assert abs(volume - expected) <= error * (1 + SLACK)
    assert error < 0.5 * float(np.prod(inner_high - inner_low))  # the common box: the bound before


def test_an_embedded_part_beside_one_crossing_itself_gives_a_lower_bound():
    """A sphere part beside the fused one, inside a box part of the other object: at least the sphere's share,
    less where the fused part's winding number may be negative."""
    first, second = PIECES["two boxes"]
    fused = fused_surface(first, second)
    sphere = fx.transformed(fx.uv_sphere(0.35, 8, 12), offset=(0.6, 0.5, 0.5))
    solid, box = Solid(fx.joined(fused, sphere)), Solid(fx.box((0.2, 0.1, 0.1), (1.0, 0.9, 0.9)))
    low, high = np.maximum(solid.bounds[0], box.bounds[0]), np.minimum(solid.bounds[1], box.bounds[1])
    least, most = overlap_bounds(solid, box, low, high)
    expected = ((fx.manifold(first) + fx.manifold(second) + fx.manifold(sphere)) ^ fx.manifold(box.mesh)).volume()
    negative = negative_bound([solid.parts[0].mesh], low, high)
    assert least == pytest.approx(max(fx.manifold(sphere).volume() - negative, 0.0), rel=1e-6) and least > 0.0
    assert least <= expected <= most


def test_the_cone_bound_is_a_convex_parts_volume_and_bounds_a_fused_one_from_above():
    sphere = fx.uv_sphere(0.5, 12, 16)
    whole = (np.full(3, -1.0), np.full(3, 1.0))
    assert enclosed_bound([sphere], *whole, [False]) == pytest.approx(fx.manifold(sphere).volume(), rel=1e-9)
    for name, (first, second) in PIECES.items():
        low = np.minimum(first.vertices.min(axis=0), second.vertices.min(axis=0))
        high = np.maximum(first.vertices.max(axis=0), second.vertices.max(axis=0))  # clear of the tube
        expected = ((fx.manifold(first) + fx.manifold(second)) ^ fx.manifold(fx.box(low, high))).volume()
        bound = enclosed_bound([fused_surface(first, second)], low, high, [False])
        assert expected <= bound
        if name == "a torus and a ring through it":
            assert bound < 0.3 * float(np.prod(high - low))


def test_a_gripper_finger_inside_a_box_is_bounded_tightly():
    """The airo-models magneto finger (three closed parts) inside a box: its parts do not cross themselves, so both
    bounds are its parts' union."""
    vertices, triangles = placed("grippers/fingertips/meshes/magneto_finger.obj")
    finger = Solid(fx.mesh(vertices, triangles), name="finger")
    low, high = vertices.min(axis=0) - 0.01, vertices.max(axis=0) + 0.01
    box = Solid(fx.box(low, high), name="box")
    parts = merged_manifold(vertices, triangles).decompose()
    expected = sum(parts[1:], parts[0]).volume()
    least, most = overlap_bounds(box, finger, low, high)
    merging = 1e-7  # manifold3d merges the file's vertices its own way: its volume differs by some 4e-8
    assert least <= expected * (1 + merging) and expected <= most * (1 + merging)
    assert most - least <= 1e-6 * expected  # the common box, the bound before, holds over 20 times the finger
