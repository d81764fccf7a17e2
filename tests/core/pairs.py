"""Seeded random pairs placed at an exact signed distance (relative to the pair's size)."""

from __future__ import annotations

import itertools

import numpy as np

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
    """Case ``index``: A and B of the given families, B placed at ``relative_gap`` x size; seeded."""
    rng = np.random.default_rng(1000 + index)
    points_a = random_shape(rng, family_a) + rng.uniform(-2, 2, size=3)
    points_b = random_shape(rng, family_b)
    size = max(size_of(points_a), size_of(points_b))
    points_b, target = place_at(points_a, points_b, relative_gap * size, rng)
    return points_a, points_b, target


#: (seed index, family of A, family of B, signed gap relative to size), every combination.
CASES = [(i, fa, fb, gap) for i, ((fa, fb), gap) in
         enumerate(itertools.product(itertools.product(FAMILIES, FAMILIES), SIGNED_GAPS))]
CASE_IDS = [f"{fa}-{fb}-{gap:+.0e}" for _, fa, fb, gap in CASES]
