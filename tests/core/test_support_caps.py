"""Support caps hold every point of a feature along directions near one asked before, without a pass over
the cloud, and contact-region features of large polytopes found from them are a full pass's."""

from __future__ import annotations

import numpy as np
import pytest

import core
from core.contact_patch.region import core_feature
from core.support.caps import CAP_REACH, SupportCaps
from generators import affine, awkward_clouds, random_rotation, unit_vectors

CLOUDS = awkward_clouds()
SLABS = (0.0, 1e-12, 1e-9, 1e-5, 1e-2)


def nearby(rng: np.random.Generator, direction: np.ndarray, angle: float) -> np.ndarray:
    """A unit direction ``angle`` (radians) from the unit ``direction``."""
    side = np.cross(direction, unit_vectors(rng, 1)[0])
    side /= np.linalg.norm(side)
    return np.cos(angle) * direction + np.sin(angle) * side


def feature_rows(points: np.ndarray, direction: np.ndarray, slab: float) -> tuple[set, set]:
    """``(rows certainly in the feature, rows within the rounding of its edge)`` by a full pass, in exact
    arithmetic up to the products' rounding (relative 1e-12 of the coordinates)."""
    heights = points @ direction
    fuzz = 1e-12 * (np.abs(points).max() * np.abs(direction).sum())
    top = heights.max()
    return set(np.flatnonzero(heights >= top - slab + fuzz).tolist()), \
        set(np.flatnonzero(np.abs(heights - (top - slab)) <= fuzz).tolist())


@pytest.mark.parametrize("name", list(CLOUDS))
def test_candidates_hold_every_feature_point_of_nearby_directions(name):
    points = CLOUDS[name]
    rng = np.random.default_rng(len(name))
    caps = SupportCaps(points)
    for first in unit_vectors(rng, 12):
        for angle in (0.0, 1e-9, 1e-4, 1e-3, 0.3 * CAP_REACH, 0.49 * CAP_REACH, 0.2, 2.0):
            direction = nearby(rng, first, angle) * rng.choice([1.0, 3.5, 1e-3])  # need not be unit
            for slab in SLABS:
                certain, _edge = feature_rows(points, direction, slab * np.linalg.norm(direction))
                rows = caps.candidates(direction, slab * np.linalg.norm(direction))
                assert certain <= set(rows.tolist())
                assert (np.diff(rows) > 0).all()
                assert int(np.argmax(points @ direction)) in set(rows.tolist())  # the support point


def test_a_cap_serves_directions_within_its_reach_without_a_pass():
    points = CLOUDS["sphere surface"]
    rng = np.random.default_rng(5)
    caps = SupportCaps(points)
    first = unit_vectors(rng, 1)[0]
    rows = caps.candidates(first, 1e-5)
    assert 0 < len(rows) < 0.05 * len(points)
    for angle in np.linspace(0.0, 0.45 * CAP_REACH, 20):  # a drag turning the normal slowly
        assert caps.candidates(nearby(rng, first, angle), 1e-5) is rows  # the same cap, no new pass
    farther = caps.candidates(nearby(rng, first, 3.0 * CAP_REACH), 1e-5)
    assert farther is not rows
    assert caps.candidates(first, 1e-5) is rows  # the first cap is still kept
    assert caps.candidates(first, 0.2) is not rows  # a slab beyond the cap's reach needs a pass


def test_a_fast_drag_gets_caps_wide_enough_for_its_next_steps():
    """Directions turning by more than a cap serves at every step: once the drift is seen, the next cap reaches
    far enough for the following steps, and every answer still holds the feature."""
    points = CLOUDS["sphere surface"]
    rng = np.random.default_rng(6)
    caps = SupportCaps(points)
    first, side = unit_vectors(rng, 2)
    side -= (side @ first) * first
    side /= np.linalg.norm(side)
    answers = []
    for step in range(12):
        angle = 0.75 * CAP_REACH * step  # 1.5 times what a first cap serves, at every step
        direction = np.cos(angle) * first + np.sin(angle) * side
        rows = caps.candidates(direction, 1e-5)
        assert feature_rows(points, direction, 1e-5)[0] <= set(rows.tolist())
        answers.append(rows)
    passes = sum(rows is not previous for rows, previous in zip(answers[1:], answers[:-1])) + 1
    assert passes <= 5  # a pass at every step without the drift's reach
    assert max(len(rows) for rows in answers) < 0.06 * len(points)


@pytest.mark.parametrize("name", ["sphere surface", "cube grid", "flat disc", "duplicates"])
def test_large_polytope_features_are_a_full_pass_s_while_the_direction_drifts(name):
    rng = np.random.default_rng(11)
    polytope = core.Polytope(CLOUDS[name])
    linear, offset = polytope.affine  # a cloud far from its origin is held about its centre
    local = polytope.vertices() @ linear.T + offset
    for _ in range(4):
        matrix = affine(random_rotation(rng) * rng.uniform(0.5, 2.0), rng.normal(size=3) * 50.0)
        moved = polytope.transformed(matrix)
        world = local @ matrix[:3, :3].T + matrix[:3, 3]
        direction = unit_vectors(rng, 1)[0]
        for step in range(30):  # a drag: the normal turns a little at a time, once by a lot
            direction = nearby(rng, direction, 0.5 if step == 15 else 2e-3)
            for slab in (1e-9, 1e-5, 1e-3):
                found = core_feature(moved, direction, slab)
                certain, edge = feature_rows(world, direction, slab)
                assert len(certain) <= len(found) <= len(certain | edge)
                gaps = np.abs(found[:, None] - world[None, sorted(certain | edge)]).max(axis=2)
                assert (gaps.min(axis=1) <= 1e-9).all()  # every point found is a feature point
                assert (gaps.min(axis=0)[np.isin(sorted(certain | edge), sorted(certain))] <= 1e-9).all()
