"""Properties every exact answer has: moving B out along the normal, swapping A and B, moving both."""

from __future__ import annotations

import numpy as np
import pytest

import core
from checks import NORMAL_TOLERANCE, VALUE_TOLERANCE, angle, assert_tangents
from generators import box, unit_vectors
from pairs import CASE_IDS, CASES, make_pair
from reference import reference_contact

STEP = 1e-6  # epsilon of the push-out property, relative to the pair's size
OVERLAPPING = [(case, name) for case, name in zip(CASES, CASE_IDS) if case[3] < 0]
GENERIC = [(case, name) for case, name in zip(CASES, CASE_IDS)
           if "box" not in case[1:3] and "cylinder" not in case[1:3]]  # unique witness points


@pytest.mark.parametrize("case", [c for c, _ in OVERLAPPING][::3], ids=[n for _, n in OVERLAPPING][::3])
def test_push_out_along_normal(case):
    """B moved by (depth + e) n no longer touches A; moved by (depth - e) n it still overlaps."""
    a, b, _ = make_pair(*case)
    contact = core.collide(a, b)
    e = STEP * reference_contact(a, b).size
    out = b + (contact.depth + e) * contact.normal
    still_in = b + (contact.depth - e) * contact.normal
    assert not core.intersect(a, out)
    assert core.collide(a, out).status == "separated"
    assert core.intersect(a, still_in)
    assert core.collide(a, still_in).status == "penetrating"


@pytest.mark.parametrize("case", [c for c in CASES if c[3] > 0][::3])
def test_pull_in_along_normal_leaves_exactly_epsilon(case):
    """B moved toward A by (distance - e) n is exactly e away: the normal is the direction of closest approach."""
    a, b, _ = make_pair(*case)
    contact = core.collide(a, b)
    e = STEP * reference_contact(a, b).size
    closer = core.collide(a, b - (contact.distance - e) * contact.normal)
    assert closer.distance == pytest.approx(e, abs=VALUE_TOLERANCE * e / STEP)


@pytest.mark.parametrize("case", [c for c, _ in GENERIC][::2], ids=[n for _, n in GENERIC][::2])
def test_swap_flips_normal_and_swaps_points(case):
    a, b, _ = make_pair(*case)
    tol = VALUE_TOLERANCE * reference_contact(a, b).size
    forward, backward = core.collide(a, b), core.collide(b, a)
    assert backward.signed_distance == pytest.approx(forward.signed_distance, abs=tol)
    assert angle(backward.normal, -forward.normal) <= NORMAL_TOLERANCE
    np.testing.assert_allclose(backward.point_a, forward.point_b, atol=tol)
    np.testing.assert_allclose(backward.point_b, forward.point_a, atol=tol)


@pytest.mark.parametrize("case", [c for c, _ in GENERIC][1::2], ids=[n for _, n in GENERIC][1::2])
def test_translating_both_changes_nothing(case):
    a, b, _ = make_pair(*case)
    tol = VALUE_TOLERANCE * reference_contact(a, b).size
    shift = np.array([3.7, -12.25, 5.3])
    here, there = core.collide(a, b), core.collide(a + shift, b + shift)
    assert there.signed_distance == pytest.approx(here.signed_distance, abs=tol)
    assert angle(there.normal, here.normal) <= NORMAL_TOLERANCE
    np.testing.assert_allclose(there.point_a, here.point_a + shift, atol=tol)
    np.testing.assert_allclose(there.point_b, here.point_b + shift, atol=tol)
    assert there.status == here.status


def near_axis_directions() -> np.ndarray:
    """Unit directions at and near +-z (and the other axes), where naive tangent formulas break."""
    tilts = [0.0, 1e-300, 1e-17, 1e-12, 1e-8, 1e-4, 0.1]
    out = []
    for axis in np.eye(3):
        for sign in (1.0, -1.0):
            for tilt in tilts:
                for side in np.eye(3):
                    d = sign * axis + tilt * side
                    out.append(d / np.linalg.norm(d))
    return np.array(out)


@pytest.mark.parametrize("direction", list(near_axis_directions()) + list(unit_vectors(np.random.default_rng(9), 30)))
def test_tangents_complete_the_normal(direction):
    """Two spheres whose centres differ along ``direction``: the normal is it, tangents complete it."""
    contact = core.collide(core.Sphere([0.0, 0.0, 0.0], 0.5), core.Sphere(1.25 * direction, 0.5))
    assert angle(contact.normal, direction) <= 1e-12
    assert_tangents(contact.tangents, contact.normal)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_tangents_for_exact_z_normals_from_boxes(sign):
    cube = box([0.5, 0.5, 0.5])
    contact = core.collide(cube, cube + [0.1, 0.2, sign * 0.9])
    np.testing.assert_allclose(contact.normal, [0.0, 0.0, sign], atol=1e-12)
    assert_tangents(contact.tangents, contact.normal)
