"""``directional_depth`` against analytic answers (boxes, spheres, capsules), a linear program over the
Minkowski difference (scipy), EPA's depth along its own normal, and ``collide`` after the move."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog

import core
from core.narrowphase.directional import directional_depth
from core.shapes.primitives import Capsule, Cylinder, Rounded
from generators import affine, box, cloud, random_rotation, unit_vectors

TOL = 1e-9


def line_interval(points_a: np.ndarray, points_b: np.ndarray, d: np.ndarray) -> tuple[float, float]:
    """(t_enter, t_exit) with t d in the hull of A - B, by two linear programs (inf, -inf if none)."""
    difference = (points_a[:, None, :] - points_b[None, :, :]).reshape(-1, 3)
    count = len(difference)
    # variables: convex weights of the difference points, then t; sum w p - t d = 0, sum w = 1
    equalities = np.vstack([np.column_stack([difference.T, -d]), np.append(np.ones(count), 0.0)])
    right = np.array([0.0, 0.0, 0.0, 1.0])
    bounds = [(0, None)] * count + [(None, None)]
    ends = []
    for sense in (1.0, -1.0):
        cost = np.append(np.zeros(count), sense)
        result = linprog(cost, A_eq=equalities, b_eq=right, bounds=bounds, method="highs")
        if result.status == 2:  # infeasible: the line misses
            return math.inf, -math.inf
        assert result.status == 0, result.message
        ends.append(result.x[-1])
    return ends[0], ends[1]


def slab_interval(center: np.ndarray, half: np.ndarray, d: np.ndarray) -> tuple[float, float]:
    """(t_enter, t_exit) of the line t d through the axis-aligned box ``center +- half`` (slab method)."""
    low, high = -math.inf, math.inf
    for c, h, di in zip(center, half, d):
        if di == 0.0:
            if abs(c) > h:
                return math.inf, -math.inf
            continue
        t0, t1 = sorted(((c - h) / di, (c + h) / di))
        low, high = max(low, t0), min(high, t1)
    return (low, high) if low <= high else (math.inf, -math.inf)


def expected_travel(interval: tuple[float, float]) -> tuple[str, float]:
    enter, exit_ = interval
    if enter > exit_ or exit_ < 0:
        return "separated", math.inf
    if enter > 0:
        return "separated", enter
    return "penetrating", exit_


DIRECTIONS = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1),
              (1, 1, 1), (-1, 1, -1), (1, -2, 0.5), (0.3, 0.1, -1)]


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("offset", [(0.3, 0.2, 1.2), (2.5, -0.4, 0.3), (-0.1, 0.05, -0.2), (0.2, 3.0, 2.0)])
def test_axis_aligned_boxes_against_slabs(direction, offset):
    half_a, half_b = np.array([1.0, 0.8, 0.6]), np.array([0.5, 0.3, 0.45])
    offset = np.array(offset)
    a, b = box(half_a) + [0.7, -0.2, 0.1], box(half_b) + [0.7, -0.2, 0.1] + offset
    d = np.array(direction, dtype=float) / np.linalg.norm(direction)
    enter, exit_ = slab_interval(-offset, half_a + half_b, d)  # M = A - B: centre -offset
    result = directional_depth(a, b, direction)
    status, travel = expected_travel((enter, exit_))
    assert result.status == status
    if math.isinf(travel):
        assert math.isinf(result.distance) and result.normal is None and result.point is None
    else:
        assert result.distance == pytest.approx(travel, abs=TOL)
        np.testing.assert_allclose(result.interval, (enter, exit_), atol=TOL)
        assert_touching_after_move(a, b, result)


def assert_touching_after_move(a, b, result, tol=TOL, shape_b=None) -> None:
    """Moving B by the travel leaves the pair touching, with the reported normal and contact point."""
    moved = (b + result.distance * result.direction) if shape_b is None else \
        shape_b.translated(result.distance * result.direction)
    contact = core.collide(a, moved)
    assert abs(contact.signed_distance) <= tol
    normal = result.normal
    assert abs(np.linalg.norm(normal) - 1.0) <= 1e-12
    assert normal @ result.direction >= -1e-12 if result.status == "penetrating" else True
    # the point is on A: A's support plane along the normal passes through it
    support = core.collide(a, np.array([result.point])).signed_distance if shape_b is None else None
    if support is not None:
        assert abs(support) <= tol


@pytest.mark.parametrize("seed", range(12))
def test_rotated_boxes_and_clouds_against_linear_program(seed):
    rng = np.random.default_rng(seed)
    a = box(rng.uniform(0.2, 1.0, 3)) @ random_rotation(rng).T
    b = (box(rng.uniform(0.2, 1.0, 3)) if seed % 2 else cloud(rng, 30)) @ random_rotation(rng).T
    b = b + rng.normal(scale=0.6, size=3)
    for d in unit_vectors(rng, 4):
        reference = line_interval(a, b, d)
        result = directional_depth(a, b, d)
        status, travel = expected_travel(reference)
        assert result.status == status
        assert result.solver_status == "converged"
        if math.isinf(travel):
            assert math.isinf(result.distance)
            continue
        np.testing.assert_allclose(result.interval, reference, atol=TOL)
        assert result.distance == pytest.approx(travel, abs=TOL)
        assert_touching_after_move(a, b, result)


@pytest.mark.parametrize("seed", range(10))
def test_along_the_epa_normal_the_travel_is_the_depth(seed):
    rng = np.random.default_rng(100 + seed)
    a = cloud(rng, 40)
    b = cloud(rng, 25) + rng.normal(scale=0.1, size=3)
    contact = core.collide(a, b)
    assert contact.status == "penetrating"
    result = directional_depth(a, b, contact.normal)
    assert result.status == "penetrating"
    assert result.distance == pytest.approx(contact.depth, abs=TOL)
    np.testing.assert_allclose(result.normal, contact.normal, atol=1e-6)
    np.testing.assert_allclose(result.point, contact.point_a, atol=1e-7)


def sphere_interval(center: np.ndarray, radius: float, d: np.ndarray) -> tuple[float, float]:
    """(t_enter, t_exit) of the line t d through the ball |x - center| <= radius."""
    along = d @ center
    disc = along * along - center @ center + radius * radius
    if disc < 0:
        return math.inf, -math.inf
    return along - math.sqrt(disc), along + math.sqrt(disc)


@pytest.mark.parametrize("direction", [(1, 0, 0), (0.3, 0.9, -0.2), (-1, 0, 0), (-1, 0.2, 0.1), (0, 0, 1)])
@pytest.mark.parametrize("center_b", [(0.5, 0.3, 0.2), (5.0, 0.3, 0.2), (-3.0, 1.0, 0.0)])
def test_spheres_analytic(direction, center_b):
    d = np.array(direction, dtype=float) / np.linalg.norm(direction)
    center_a, center_b = np.array([0.2, -0.1, 0.4]), np.array(center_b)
    ra, rb = 1.0, 0.7
    result = directional_depth(core.Sphere(center_a, ra), core.Sphere(center_b, rb), d)
    interval = sphere_interval(center_a - center_b, ra + rb, d)
    status, travel = expected_travel(interval)
    assert result.status == status
    if math.isinf(travel):
        assert math.isinf(result.distance)
        return
    assert result.distance == pytest.approx(travel, abs=TOL)
    np.testing.assert_allclose(result.interval, interval, atol=TOL)
    # the touching pair's normal runs from A's centre through the contact point
    moved = center_b + travel * d
    expected_normal = (moved - center_a) / np.linalg.norm(moved - center_a)
    np.testing.assert_allclose(result.normal, expected_normal, atol=1e-7)
    np.testing.assert_allclose(result.point, center_a + ra * expected_normal, atol=1e-7)


def test_capsule_dropped_onto_a_box_lands_on_its_top_face():
    # a horizontal capsule of radius 0.25 above a box whose top is at z = 1
    slab = box([2.0, 2.0, 0.5]) + [0.0, 0.0, 0.5]
    capsule = Capsule([-0.8, 0.1, 3.0], [0.6, 0.3, 3.0], 0.25)
    result = directional_depth(slab, capsule, [0, 0, -1])
    assert result.status == "separated"
    assert result.distance == pytest.approx(3.0 - 0.25 - 1.0, abs=TOL)
    np.testing.assert_allclose(result.normal, [0, 0, 1], atol=1e-9)
    assert result.point[2] == pytest.approx(1.0, abs=TOL)
    sunk = Capsule([-0.8, 0.1, 1.1], [0.6, 0.3, 1.1], 0.25)  # 0.15 into the box
    up = directional_depth(slab, sunk, [0, 0, 1])
    assert up.status == "penetrating" and up.distance == pytest.approx(0.15, abs=TOL)
    # sliding along +x it leaves over the top edge (x = 2, z = 1), last touched by its left end cap,
    # whose circle at z = 1 has radius sqrt(0.25^2 - 0.1^2)
    reach = math.sqrt(0.25 ** 2 - 0.1 ** 2)
    sideways = directional_depth(slab, sunk, [1, 0, 0])
    assert sideways.distance == pytest.approx(2.0 + 0.8 + reach, abs=TOL)
    np.testing.assert_allclose(sideways.normal, [reach / 0.25, 0.0, 0.1 / 0.25], atol=1e-7)
    np.testing.assert_allclose(sideways.point, [2.0, 0.1, 1.0], atol=1e-7)


def test_rounded_box_along_a_diagonal_meets_the_rounded_corner():
    # A: unit cube rounded by 0.2; B: a point far along (1,1,1) moving back toward A
    rounded = Rounded(core.Box([0.5, 0.5, 0.5]), 0.2)
    point = np.array([[3.0, 3.0, 3.0]])
    result = directional_depth(rounded, point, [-1, -1, -1])
    corner = np.linalg.norm([3.0 - 0.5] * 3) - 0.2  # the corner ball's surface along the diagonal
    assert result.status == "separated"
    assert result.distance == pytest.approx(corner, abs=TOL)
    np.testing.assert_allclose(result.normal, np.ones(3) / np.sqrt(3), atol=1e-9)


def test_curved_cylinder_against_bisection_with_collide():
    cylinder = Cylinder(0.5, 0.8, affine(random_rotation(np.random.default_rng(3)), [0.1, 0.2, 0.0]))
    b = box([0.3, 0.2, 0.4]) @ random_rotation(np.random.default_rng(4)).T + [0.5, 0.3, 0.2]
    d = np.array([1.0, 0.4, 0.2]) / np.linalg.norm([1.0, 0.4, 0.2])
    result = directional_depth(cylinder, b, d, tolerance=1e-12)
    assert result.status == "penetrating"
    low, high = 0.0, 5.0  # overlapping at 0, apart at 5: bisect on collide's status
    for _ in range(60):
        middle = 0.5 * (low + high)
        if core.collide(cylinder, b + middle * d, tolerance=1e-12).signed_distance < 0:
            low = middle
        else:
            high = middle
    assert result.distance == pytest.approx(low, abs=1e-8)


def test_touching_pairs_need_no_travel():
    lower, upper = box([1.0, 1.0, 0.5]), box([0.4, 0.4, 0.3]) + [0.2, 0.1, 0.8]  # upper rests on lower
    for direction in ([0, 0, 1], [0, 0, -1], [1, 0.3, 0]):
        result = directional_depth(lower, upper, direction)
        assert result.status == "touching" and result.distance == 0.0
    down = directional_depth(lower, upper, [0, 0, -1])
    assert down.interval[1] == pytest.approx(1.6, abs=TOL)  # through A and out of its bottom


def test_result_does_not_depend_on_a_large_offset():
    a, b = box([1.0, 0.7, 0.5]), box([0.3, 0.3, 0.3]) + [0.9, 0.2, 0.1]
    d = [0.6, -0.3, 0.2]
    near = directional_depth(a, b, d)
    far = directional_depth(a + 1e6, b + 1e6, d)
    assert far.distance == pytest.approx(near.distance, abs=1e-9)
    np.testing.assert_allclose(far.point - 1e6, near.point, atol=1e-9)


@pytest.mark.parametrize("direction", [(0, 0, 0), (1, 2), (np.nan, 0, 1)])
def test_bad_directions_are_refused(direction):
    with pytest.raises(ValueError, match="direction"):
        directional_depth(box([1, 1, 1]), box([1, 1, 1]), direction)


def test_iteration_cap_gives_a_conservative_travel():
    sphere_a, sphere_b = core.Sphere([0, 0, 0], 1.0), core.Sphere([4.0, 0.9, 0.0], 0.5)
    d = [-1.0, 0.0, 0.0]
    exact = directional_depth(sphere_a, sphere_b, d)
    capped = directional_depth(sphere_a, sphere_b, d, max_iterations=1)
    assert exact.solver_status == "converged" and capped.solver_status == "iteration_limit"
    assert exact.distance == pytest.approx(4.0 - math.sqrt(1.5 ** 2 - 0.9 ** 2), abs=TOL)
    assert capped.interval[0] < exact.interval[0] - 1e-3  # stopped short: the ray never passes the hit
