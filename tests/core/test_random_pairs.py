"""Seeded random pairs at exact overlaps and gaps from 1e-7 to 0.3 of their size, against the reference."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import core
from checks import VALUE_TOLERANCE, assert_matches_reference
from generators import random_shape, unit_vectors
from reference import reference_contact, size_of

FAMILIES = ("cloud", "box", "sphere", "cylinder")
GAPS = (1e-7, 1e-5, 1e-3, 0.03, 0.3)
SIGNED_GAPS = tuple(sorted([-g for g in GAPS] + list(GAPS)))


def place_at(points_a: np.ndarray, points_b: np.ndarray, target: float, rng: np.random.Generator):
    """Move B so that the pair's signed distance is exactly ``target``; return B and the target.

    B starts overlapping A deeply; pushing it along an optimal normal n by t >= 0 raises the signed
    distance by exactly t (the separation along n grows by t, and along no direction by more). Thin
    shapes cannot overlap by 0.3 x size: their overlap is capped at half the deepest start.
    """
    size = max(size_of(points_a), size_of(points_b))
    start = points_b - points_b.mean(axis=0) + points_a.mean(axis=0) + 0.05 * size * unit_vectors(rng, 1)[0]
    ref = reference_contact(points_a, start)
    target = max(target, 0.5 * ref.signed_distance)
    return start + (target - ref.signed_distance) * ref.normal, target


def make_pair(index: int, family_a: str, family_b: str, relative_gap: float):
    rng = np.random.default_rng(1000 + index)
    points_a = random_shape(rng, family_a) + rng.uniform(-2, 2, size=3)
    points_b = random_shape(rng, family_b)
    size = max(size_of(points_a), size_of(points_b))
    points_b, target = place_at(points_a, points_b, relative_gap * size, rng)
    return points_a, points_b, target


CASES = [(i, fa, fb, gap) for i, ((fa, fb), gap) in
         enumerate(itertools.product(itertools.product(FAMILIES, FAMILIES), SIGNED_GAPS))]


@pytest.mark.parametrize("index, family_a, family_b, relative_gap", CASES,
                         ids=[f"{fa}-{fb}-{gap:+.0e}" for _, fa, fb, gap in CASES])
def test_random_pair_matches_reference(index, family_a, family_b, relative_gap):
    points_a, points_b, target = make_pair(index, family_a, family_b, relative_gap)
    ref = reference_contact(points_a, points_b)
    assert abs(ref.signed_distance - target) <= 1e-12 * ref.size  # the pair is what we asked for
    contact = core.collide(points_a, points_b)
    assert_matches_reference(contact, ref, points_a, points_b)
    assert contact.status == ("separated" if relative_gap > 0 else "penetrating")
    assert core.intersect(points_a, points_b) == (relative_gap < 0)


@pytest.mark.parametrize("index, family_a, family_b, relative_gap", CASES[::7],
                         ids=[f"{fa}-{fb}-{gap:+.0e}" for _, fa, fb, gap in CASES[::7]])
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
