"""Seeded random pairs at exact overlaps and gaps from 1e-7 to 0.3 of their size, against the reference."""

from __future__ import annotations

import numpy as np
import pytest

import core
from checks import BOUNDS_SLACK, VALUE_TOLERANCE, assert_matches_reference
from pairs import CASE_IDS, CASES, make_pair
from reference import reference_contact, size_of


@pytest.mark.parametrize("index, family_a, family_b, relative_gap", CASES, ids=CASE_IDS)
def test_random_pair_matches_reference(index, family_a, family_b, relative_gap):
    points_a, points_b, target = make_pair(index, family_a, family_b, relative_gap)
    ref = reference_contact(points_a, points_b)
    assert abs(ref.signed_distance - target) <= 1e-12 * ref.size  # the pair is what we asked for
    contact = core.collide(points_a, points_b)
    assert_matches_reference(contact, ref, points_a, points_b)
    assert contact.status == ("separated" if relative_gap > 0 else "penetrating")
    assert contact.solver_status == "converged"
    assert contact.bounds[1] - contact.bounds[0] <= contact.tolerance + BOUNDS_SLACK * ref.size
    assert core.intersect(points_a, points_b) == (relative_gap < 0)


@pytest.mark.parametrize("index, family_a, family_b, relative_gap", CASES[::7], ids=CASE_IDS[::7])
def test_random_pair_prepared_shapes_agree(index, family_a, family_b, relative_gap):
    """Prepared, transformed polytopes give the raw-point answer (same pair, other code path)."""
    points_a, points_b, _ = make_pair(index, family_a, family_b, relative_gap)
    raw = core.collide(points_a, points_b)
    centre = points_b.mean(axis=0)
    moved = np.eye(4)
    moved[:3, 3] = centre
    prepared = core.collide(core.Polytope(points_a), core.Polytope(points_b - centre).transformed(moved))
    size = max(size_of(points_a), size_of(points_b))
    assert abs(prepared.signed_distance - raw.signed_distance) <= VALUE_TOLERANCE * size


@pytest.mark.parametrize("cap", [1, 3])
@pytest.mark.parametrize("index, family_a, family_b, relative_gap", CASES[::9], ids=CASE_IDS[::9])
def test_iteration_cap_keeps_bounds_honest(index, family_a, family_b, relative_gap, cap):
    """Stopped early, the answer says so and its bounds still hold the exact value."""
    points_a, points_b, _ = make_pair(index, family_a, family_b, relative_gap)
    ref = reference_contact(points_a, points_b)
    contact = core.collide(points_a, points_b, max_iterations=cap)
    assert contact.gjk_iterations <= cap and contact.epa_iterations <= cap
    slack = BOUNDS_SLACK * ref.size
    assert contact.bounds[0] - slack <= ref.signed_distance <= contact.bounds[1] + slack
    assert contact.bounds[0] - slack <= contact.signed_distance <= contact.bounds[1] + slack
    if contact.solver_status == "converged":
        assert abs(contact.signed_distance - ref.signed_distance) <= VALUE_TOLERANCE * ref.size
    else:
        assert contact.solver_status in ("iteration_limit", "stalled", "degenerate")


@pytest.mark.parametrize("relative_tolerance", [1e-6, 1e-2])
@pytest.mark.parametrize("index, family_a, family_b, relative_gap", CASES[::4], ids=CASE_IDS[::4])
def test_coarse_tolerance_is_honoured(index, family_a, family_b, relative_gap, relative_tolerance):
    """With a coarser solver tolerance the answer is within it, and converged bounds are that close."""
    points_a, points_b, _ = make_pair(index, family_a, family_b, relative_gap)
    ref = reference_contact(points_a, points_b)
    tolerance, slack = relative_tolerance * ref.size, BOUNDS_SLACK * ref.size
    contact = core.collide(points_a, points_b, tolerance=tolerance)
    assert abs(contact.signed_distance - ref.signed_distance) <= tolerance + slack
    assert abs(ref.separation_along(contact.normal) - contact.signed_distance) <= tolerance + slack
    assert contact.bounds[0] - slack <= ref.signed_distance <= contact.bounds[1] + slack
    assert contact.solver_status == "converged"
    assert contact.bounds[1] - contact.bounds[0] <= tolerance + slack
