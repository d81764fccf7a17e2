"""Pairs a few micrometres across 1e8 from the origin, and pairs at extreme scales inside the accepted range: answers
exact to 1e-9 of the pair's size (against Qhull's hull of the exact input, moved back exactly), from ``collide``,
the batched path and warm EPA alike; beyond the range, a refusal naming the argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

import core
from core.narrowphase.batch import collide_many
from core.narrowphase.warm_epa import collide_warm
from core.validation import MAX_COORDINATE, MIN_PAIR_SIZE
from checks import VALUE_TOLERANCE
from generators import cloud, random_rotation, sphere
from reference import ExactHull, reference_contact

EPSILON = 2.0 ** -53


def exactly_shifted(a: np.ndarray, b: np.ndarray, shift: np.ndarray):
    """``a`` and ``b`` rounded so that moving them by ``shift`` and back is exact: the moved pair is then the very
    pair the reference sees."""
    return (a + shift) - shift, (b + shift) - shift


def far_pairs(seed: int):
    """(name, A, B, shift): A and B about 3 micrometres across (unshifted), meant to be moved by ``shift``, 1e8
    from the origin."""
    rng = np.random.default_rng(seed)
    shift = rng.choice([-1.0, 1.0], size=3) * 1e8 * rng.uniform(1.0, 2.0, size=3)
    size = 3e-6
    dense = sphere(300, 0.5 * size) @ random_rotation(rng).T
    ends = rng.normal(size=(2, 3)) * size
    needle = np.vstack([ends, ends[0] + 0.3 * (ends[1] - ends[0])])
    pairs = {
        "clouds": (cloud(rng, 30) * size, cloud(rng, 30) * size + rng.normal(size=3) * size),
        "identical dense spheres": (dense, dense + rng.normal(size=3) * 0.02 * size),
        "identical needles": (needle, needle + rng.normal(size=3) * 0.02 * size),
        "touching boxes": (np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)]) * size,
                           np.array([[x, y, z] for x in (1, 2) for y in (0, 1) for z in (0, 1)]) * size),
    }
    return [(name, *exactly_shifted(a, b, shift), shift) for name, (a, b) in pairs.items()]


def assert_exact(contact, a: np.ndarray, b: np.ndarray, shift: np.ndarray, factor: float = 1.0) -> None:
    """``contact`` (for ``(a + shift) * factor``, ``(b + shift) * factor``; ``factor`` a power of two) is the
    reference's answer for ``a`` and ``b`` to 1e-9 of the size, converged, with certain bounds; its normal achieves
    the value and its witness points are on the shapes (up to the rounding of world coordinates)."""
    ref = reference_contact(a, b)
    tol = VALUE_TOLERANCE * ref.size
    value = contact.signed_distance / factor
    assert contact.solver_status in ("converged", "degenerate")  # degenerate: A - B flat, measured as exactly
    assert abs(value - ref.signed_distance) <= tol, (value, ref.signed_distance, ref.size)
    low, high = (bound / factor for bound in contact.bounds)
    assert low - 1e-13 * ref.size <= ref.signed_distance <= high + 1e-13 * ref.size
    expected = "touching" if abs(ref.signed_distance) <= contact.tolerance / factor else (
        "penetrating" if ref.signed_distance < 0 else "separated")
    assert contact.status == expected
    n = contact.normal
    assert value - ((b @ n).min() - (a @ n).max()) <= tol
    world = 4.0 * EPSILON * float(np.abs(shift).max())  # witness points are rounded to world coordinates
    for point, points in ((contact.point_a, a), (contact.point_b, b)):
        assert ExactHull(points).distance(point / factor - shift) <= tol + world


@pytest.mark.parametrize("seed", range(4))
def test_tiny_shapes_far_from_the_origin_are_exact(seed):
    for name, a, b, shift in far_pairs(seed):
        assert_exact(core.collide(a + shift, b + shift), a, b, shift)
        assert_exact(core.collide(b + shift, a + shift), b, a, shift)


def test_batched_and_warm_answers_far_from_the_origin_are_exact():
    pairs = far_pairs(10)
    batched = collide_many([a + shift for _, a, _, shift in pairs], [b + shift for _, _, b, shift in pairs])
    for (name, a, b, shift), contact in zip(pairs, batched):
        assert_exact(contact, a, b, shift)
    for name, a, b, shift in pairs:
        shape_a, shape_b = core.Polytope(a + shift), core.Polytope(b + shift)
        warm = None
        for step in range(3):  # B walked a little along x, each query warm-started from the last
            move = np.eye(4)
            move[0, 3] = step * 2.0 ** -20
            contact, warm = collide_warm(shape_a, shape_b.transformed(move), warm)
            moved_b = (b + shift + move[:3, 3]) - shift
            assert_exact(contact, a, moved_b, shift)


SCALES = (1e-140, 1e-120, 1e-60, 1e60, 1e85, 1e90, 1e95)


@pytest.mark.parametrize("scale", SCALES)
def test_extreme_scales_inside_the_accepted_range_are_exact(scale):
    """Pairs scaled by factors that are no power of two: the scaled input is exact as it is, and a power of two
    takes it back to about 1 across, exactly, for the reference."""
    rng = np.random.default_rng(int(abs(math.log10(scale))))
    back = -math.frexp(scale)[1]
    dense = sphere(300) @ random_rotation(rng).T
    for a, b in ((cloud(rng, 20), cloud(rng, 20) + rng.normal(size=3) * 0.5),
                 (dense, dense + rng.normal(size=3) * 1e-6),
                 (cloud(rng, 8), cloud(rng, 8) + [0.7, 0.0, 0.0])):
        scaled_a, scaled_b = a * scale, b * scale
        contact = core.collide(scaled_a, scaled_b)
        assert_exact(contact, np.ldexp(scaled_a, back), np.ldexp(scaled_b, back), np.zeros(3), 2.0 ** -back)


def test_beyond_the_accepted_range_is_refused_by_name():
    unit = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="points_b"):
        core.collide(unit, unit * MAX_COORDINATE * 2.0)
    with pytest.raises(ValueError, match="points_a"):
        core.collide(unit * MAX_COORDINATE * 2.0, unit)
    with pytest.raises(ValueError, match="points_a and points_b"):
        core.collide(unit * MIN_PAIR_SIZE * 0.1, unit * MIN_PAIR_SIZE * 0.1 + [MIN_PAIR_SIZE * 0.2, 0.0, 0.0])
    core.collide(unit * MAX_COORDINATE * 0.5, unit * MAX_COORDINATE * 0.5 + [MAX_COORDINATE * 0.25, 0.0, 0.0])
    core.collide(unit * MIN_PAIR_SIZE * 4.0, unit * MIN_PAIR_SIZE * 4.0 + [MIN_PAIR_SIZE * 6.0, 0.0, 0.0])
