"""Touching pairs report the contact feature's normal: the shared face's for face contacts, and witness
points on both support planes (checked with the shapes' own points, and the face normal is known exactly)."""

from __future__ import annotations

import numpy as np
import pytest

import core
from core.narrowphase.batch import collide_many
from checks import VALUE_TOLERANCE, assert_conventions, assert_on_shape
from generators import box, random_rotation
from reference import ExactHull

SIZES = (0.01, 0.3, 1.0, 37.0, 1000.0)
OFFSETS = (-1e-15, -3e-16, -1e-16, 0.0, 1e-16, 3e-16, 1e-15)  # of B along the face normal, relative to the size
TRIALS = 8  # random rotations per size and offset


def _face_offset_tuple(rng: np.random.Generator, size: float, offset: float):
    """A tilted cube A (placed anywhere near the origin) and B, its copy moved across one of A's faces
    (by the size plus ``offset`` x size, shuffled), with that face's normal."""
    turn = random_rotation(rng)
    a = box([0.5 * size] * 3) @ turn.T + rng.normal(size=3) * size * rng.choice([0.0, 1.0, 10.0])
    normal = turn[:, rng.integers(3)] * rng.choice([-1.0, 1.0])
    b = (a + (size + offset * size) * normal)[rng.permutation(8)]
    return a, b, normal


def _support_gaps(contact, points_a, points_b) -> float:
    """How far the witness points are from the support planes of A and B along the reported normal."""
    n = contact.normal
    return max(abs((points_a @ n).max() - contact.point_a @ n), abs(contact.point_b @ n - (points_b @ n).min()))


def assert_face_contact(contact, points_a, points_b, face_normal, size: float) -> None:
    """Touching, the face's normal, witness points on both support planes and on their shapes."""
    assert contact.status == "touching"
    assert_conventions(contact, size)
    assert np.linalg.norm(contact.normal - face_normal) <= VALUE_TOLERANCE, (contact.normal, face_normal)
    assert _support_gaps(contact, points_a, points_b) <= VALUE_TOLERANCE * size
    assert_on_shape(contact.point_a, ExactHull(points_a), size, "point_a")
    assert_on_shape(contact.point_b, ExactHull(points_b), size, "point_b")


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("size", SIZES)
def test_tilted_kissing_cubes_report_the_shared_face(size, offset):
    rng = np.random.default_rng([int(size * 100), OFFSETS.index(offset)])
    pairs = [_face_offset_tuple(rng, size, offset) for _ in range(TRIALS)]
    for a, b, normal in pairs:
        assert_face_contact(core.collide(a, b), a, b, normal, 2.0 * size)
        assert_face_contact(core.collide(b, a), b, a, -normal, 2.0 * size)
    # The batched path answers the same.
    for (a, b, normal), contact in zip(pairs, collide_many([a for a, _, _ in pairs], [b for _, b, _ in pairs])):
        assert_face_contact(contact, a, b, normal, 2.0 * size)


def _resting(rng: np.random.Generator, base: np.ndarray, normal: np.ndarray, half_extents, offset: float):
    """A box of ``half_extents`` turned about ``normal`` at random, resting on ``base``'s top face along it
    (moved by ``offset`` beyond it), somewhere over the face's middle."""
    frame = np.linalg.qr(np.column_stack([normal, rng.normal(size=(3, 2))]))[0]
    frame[:, 0] = normal
    frame[:, 2] = np.cross(frame[:, 0], frame[:, 1])
    corners = box(half_extents) @ frame.T
    top = (base @ normal).max()
    along_face = frame[:, 1:] @ rng.uniform(-0.1, 0.1, 2) * np.ptp(base, axis=0).max()
    middle = base.mean(axis=0)
    return corners + normal * (top + offset - (corners @ normal).min() - middle @ normal) + middle + along_face


@pytest.mark.parametrize("seed", range(6))
def test_resting_boxes_report_the_supporting_face(seed):
    rng = np.random.default_rng(seed)
    for size in SIZES:
        turn = random_rotation(rng)
        base = box([0.5 * size] * 3) @ turn.T + rng.normal(size=3) * size
        normal = turn[:, 2]
        offset = float(rng.choice(OFFSETS)) * size
        resting = _resting(rng, base, normal, rng.uniform(0.05, 0.25, 3) * size, offset)
        assert_face_contact(core.collide(base, resting), base, resting, normal, 2.0 * size)
        assert_face_contact(core.collide(resting, base), resting, base, -normal, 2.0 * size)


@pytest.mark.parametrize("seed", range(6))
def test_box_on_a_tilted_slab(seed):
    rng = np.random.default_rng(100 + seed)
    for size in SIZES:
        turn = random_rotation(rng)
        slab = box(np.array([2.0, 2.0, 0.02]) * size) @ turn.T + rng.normal(size=3) * size
        normal = turn[:, 2]
        offset = float(rng.choice(OFFSETS)) * size
        resting = _resting(rng, slab, normal, np.array([0.3, 0.2, 0.1]) * size, offset)
        assert_face_contact(core.collide(slab, resting), slab, resting, normal, 4.0 * size)


@pytest.mark.parametrize("seed", range(6))
def test_sphere_on_a_face(seed):
    """A ball (``core.Sphere``: exact) resting on a tilted box's face touches it at the foot of its centre."""
    rng = np.random.default_rng(200 + seed)
    for size in SIZES:
        turn = random_rotation(rng)
        slab = box(np.array([1.0, 1.0, 0.1]) * size) @ turn.T + rng.normal(size=3) * size
        normal = turn[:, 2] * rng.choice([-1.0, 1.0])
        radius = rng.uniform(0.05, 0.5) * size
        offset = float(rng.choice(OFFSETS)) * size
        middle = slab.mean(axis=0)
        foot = middle + normal * ((slab @ normal).max() - middle @ normal) + turn[:, :2] @ rng.uniform(-0.9, 0.9, 2) * size
        centre = foot + normal * (radius + offset)
        contact = core.collide(slab, core.Sphere(centre, radius))
        assert contact.status == "touching"
        assert np.linalg.norm(contact.normal - normal) <= VALUE_TOLERANCE
        np.testing.assert_allclose(contact.point_b, centre - radius * contact.normal, atol=VALUE_TOLERANCE * size)
        assert abs((slab @ contact.normal).max() - contact.point_a @ contact.normal) <= VALUE_TOLERANCE * size
        np.testing.assert_allclose(contact.point_a, foot, atol=VALUE_TOLERANCE * size)
