"""Triangle trees fine only around focus boxes (``TriangleBVH.build(focus=...)``, ``Solid.focus_tree``): sound
everywhere, and a big object measured against small ones gives the answers the whole tree gives, which coal and
manifold3d confirm, on seeded sculpt-like meshes (bumpy, finely subdivided spheres and tori)."""

from __future__ import annotations

import numpy as np
import pytest

import core.mesh.bvh as bvh_module
import core.mesh.solid as solid_module
from core.mesh import Solid
from core.mesh.bvh import TriangleBVH
from core.mesh.contact.batch import measure_solid_pairs
from core.mesh.distance import mesh_distance, nearest_on_surface
from core.mesh.intersection import surface_intersection
from generators import random_rotation
from mesh_fixtures import coal_distance, manifold_overlap, mesh, torus, transformed, uv_sphere

EXACT = 1e-9


def bumpy(shape, rng: np.random.Generator, amplitude: float = 0.05):
    """``shape`` with every vertex pushed along its direction from the centre by a smooth random bump: a sculpt's
    uneven surface (still closed, still outward for small amplitudes)."""
    centred = shape.vertices - shape.vertices.mean(axis=0)
    waves = rng.normal(size=(3, 3))
    bump = 1.0 + amplitude * np.sin(centred @ waves).sum(axis=1) / 3.0
    return mesh(shape.vertices.mean(axis=0) + centred * bump[:, None], shape.triangles)


def focus_of(shape, margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    low, high = shape.vertices.min(axis=0) - margin, shape.vertices.max(axis=0) + margin
    return low[None], high[None]


@pytest.mark.parametrize("far_leaf", [16, 64])
def test_a_focused_tree_covers_every_triangle_in_sound_boxes(monkeypatch, far_leaf):
    monkeypatch.setattr(bvh_module, "FAR_LEAF_SIZE", far_leaf)
    rng = np.random.default_rng(far_leaf)
    big = bumpy(torus(2.0, 0.5, 48, 24), rng)
    focus = (np.array([[1.5, -0.5, -1.0]]), np.array([[2.5, 0.5, 1.0]]))
    tree = TriangleBVH.build(big, 4, focus=focus)
    assert tree.focused and np.array_equal(np.sort(tree.order), np.arange(len(big.triangles)))
    leaves = np.flatnonzero(tree.is_leaf)
    sizes = tree.ends[leaves] - tree.starts[leaves]
    assert sizes.sum() == len(big.triangles) and sizes.max() <= far_leaf
    for node in range(len(tree.lows)):
        triangles = tree.order[tree.starts[node]:tree.ends[node]]
        corners = big.corners[triangles]
        assert (big.lows[triangles] >= tree.lows[node]).all() and (big.highs[triangles] <= tree.highs[node]).all()
        assert (np.abs((corners - tree.centres[node]) @ tree.axes[node]) <= tree.halves[node]).all()
    assert np.allclose(np.einsum("nij,nik->njk", tree.axes, tree.axes), np.eye(3), atol=1e-12)
    # leaves whose boxes meet the focus are as fine as the whole tree's; far ones are coarser
    meets = ((tree.lows[leaves] <= focus[1]) & (focus[0] <= tree.highs[leaves])).all(axis=1)
    assert meets.any() and sizes[meets].max() <= 4 and sizes[~meets].max() > 4
    assert len(tree.lows) < len(TriangleBVH.build(big).lows) / 2


def test_without_a_focus_the_tree_is_the_whole_one_bit_for_bit():
    big = bumpy(uv_sphere(1.0, 40, 60), np.random.default_rng(1))
    whole, everywhere = TriangleBVH.build(big), TriangleBVH.build(big, focus=focus_of(big, 1.0))
    for name in ("order", "lows", "highs", "axes", "centres", "halves", "children", "starts", "ends", "anchors"):
        assert np.array_equal(getattr(whole, name), getattr(everywhere, name)), name


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_queries_on_a_focused_tree_are_the_whole_trees(seed):
    """Distances, nearest surface points and crossings, near the focus and far from it."""
    rng = np.random.default_rng(seed)
    big = bumpy(torus(2.0, 0.6, 64, 32), rng)
    small = transformed(uv_sphere(0.4, 8, 12), random_rotation(rng), (2.0, 0.0, 0.3))
    whole = TriangleBVH.build(big)
    focused = TriangleBVH.build(big, focus=focus_of(small))
    for offset in ([0.0, 0.0, 0.0], [0.0, 0.0, 1.2], [-4.0, 0.5, 0.0]):  # crossing, apart nearby, far away
        moved = transformed(small, offset=offset)
        moved_tree = TriangleBVH.build(moved)
        exact = mesh_distance(big, moved, bvh_a=whole, bvh_b=moved_tree)
        found = mesh_distance(big, moved, bvh_a=focused, bvh_b=moved_tree)
        assert found.distance == exact.distance
        assert found.distance == pytest.approx(coal_distance(big, moved), abs=EXACT)
        crossing = surface_intersection(big, moved, trees=(whole, moved_tree))
        focused_crossing = surface_intersection(big, moved, trees=(focused, moved_tree))
        assert len(focused_crossing.curves) == len(crossing.curves)
        for curve, other in zip(crossing.curves, focused_crossing.curves):
            assert np.array_equal(curve, other)
    points = rng.uniform(-3.0, 3.0, size=(200, 3))
    distance, closest, _triangle = nearest_on_surface(big, points, bvh=whole)
    found_distance, found_closest, found_triangle = nearest_on_surface(big, points, bvh=focused)
    assert np.array_equal(found_distance, distance)  # (a tie between triangles sharing a corner may go either way)
    np.testing.assert_allclose(found_closest, closest, atol=1e-12)
    on_found = nearest_on_surface(mesh(big.vertices, big.triangles[found_triangle]), found_closest)[0]
    assert on_found.max() <= 1e-12


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_a_sculpt_and_props_measure_as_with_the_whole_tree(monkeypatch, seed):
    """A finely subdivided bumpy sphere (a sculpt) against small props crossing it, near it and inside it: the
    pairs measured with its tree focused on the props give the whole tree's answers; volumes as manifold3d's."""
    rng = np.random.default_rng(seed)
    sculpt = bumpy(uv_sphere(1.0, 60, 90), rng)
    props = [transformed(uv_sphere(0.3, 8, 12), random_rotation(rng), direction * distance)
             for direction, distance in zip(rng.normal(size=(3, 3)), (1.0, 1.4, 0.4))]
    props = [transformed(prop, offset=-prop.vertices.mean(axis=0) + centre)
             for prop, centre in zip(props, [p.vertices.mean(axis=0) / np.linalg.norm(p.vertices.mean(axis=0)) * r
                                             for p, r in zip(props, (1.0, 1.4, 0.4))])]
    answers = {}
    for least in (10**12, 1000):  # no focus; focused on the props
        monkeypatch.setattr(solid_module, "FOCUS_MIN_TRIANGLES", least)
        big = Solid(sculpt)
        answers[least] = measure_solid_pairs([(big, Solid(prop)) for prop in props])[1]
        assert ("bvh" not in big.__dict__) or big.bvh.focused == (least == 1000)
    for whole, focused, prop in zip(answers[10**12], answers[1000], props):
        assert (focused.status, focused.signed_distance, focused.overlap_volume) == (
            whole.status, whole.signed_distance, whole.overlap_volume)
        assert np.array_equal(focused.normal, whole.normal) and np.array_equal(focused.point_a, whole.point_a)
        assert len(focused.curves) == len(whole.curves)
        for curve, other in zip(whole.curves, focused.curves):
            assert np.array_equal(curve, other)
        volume = manifold_overlap(sculpt, prop)[0]
        assert (focused.overlap_volume or 0.0) == pytest.approx(volume, abs=EXACT)
        if focused.status == "separated":
            assert focused.signed_distance == pytest.approx(coal_distance(sculpt, prop), abs=EXACT)


def test_a_focused_tree_takes_the_boxes_asked_for_before_it_is_built_and_is_widened_after(monkeypatch):
    """Boxes asked for before the build are all fine; a new place after it, too many boxes, or a drag: fine
    everywhere (a sculpt met at ever new places is built at most twice)."""
    monkeypatch.setattr(solid_module, "FOCUS_MIN_TRIANGLES", 1000)
    monkeypatch.setattr(solid_module, "FOCUS_BOXES", 2)
    sculpt = bumpy(uv_sphere(1.0, 40, 60), np.random.default_rng(7))
    right, left = (np.array([0.9, -0.1, -0.1]), np.array([1.1, 0.1, 0.1])), (np.array([-1.1, -0.1, -0.1]),
                                                                               np.array([-0.9, 0.1, 0.1]))
    one, both = Solid(sculpt), Solid(sculpt)
    one.focus_tree(*right)
    both.focus_tree(*right)
    both.focus_tree(*left)
    assert one.bvh.focused and both.bvh.focused and len(both.bvh.lows) > len(one.bvh.lows)
    first = one.bvh
    one.focus_tree(np.array([0.95, -0.05, -0.05]), np.array([1.05, 0.05, 0.05]))  # inside: kept
    assert one.bvh is first
    copy = one.translated([5.0, 0.0, 0.0])
    copy.focus_tree(np.array([5.0, 0.9, -0.1]), np.array([5.1, 1.1, 0.1]))  # a new place, moved back: everywhere
    assert not one.bvh.focused and not copy.bvh.focused
    many = Solid(sculpt)
    for box in (right, left, (np.array([-0.1, 0.9, -0.1]), np.array([0.1, 1.1, 0.1]))):
        many.focus_tree(*box)
    many.focus_tree(*right)  # once fine everywhere, always
    assert not many.bvh.focused
    dragged = Solid(sculpt)
    dragged.focus_tree(*right)
    moved = dragged.translated([1.0, 0.0, 0.0])
    assert moved.bvh.focused
    moved.widen_tree()
    assert not moved.bvh.focused and not dragged.bvh.focused
