"""At a tiny iteration cap the answer is the best found so far and honest, never an exception."""

import numpy as np
import pytest

import core
from checks import assert_conventions, assert_on_shape
from generators import box
from reference import ExactHull, size_of

CUBE = box([0.5, 0.5, 0.5])


@pytest.mark.parametrize("offset", [0.5, 0.7, 0.9, 0.99])
@pytest.mark.parametrize("cap", [1, 2, 3])
def test_capped_overlap_is_honest_with_witnesses_on_the_shapes(offset, cap):
    other = CUBE + [offset, 0.0, 0.0]
    contact = core.collide(CUBE, other, max_iterations=cap)
    true_signed_distance = offset - 1.0
    size = size_of(np.vstack([CUBE, other]))
    assert contact.solver_status == "iteration_limit"
    assert contact.gjk_iterations <= cap and contact.epa_iterations <= cap
    assert contact.bounds[0] - 1e-15 <= true_signed_distance <= contact.bounds[1] + 1e-15
    assert contact.bounds[0] <= contact.signed_distance <= contact.bounds[1]
    assert contact.signed_distance >= true_signed_distance - 1e-12  # never deeper than the truth
    assert_conventions(contact, size)
    assert_on_shape(contact.point_a, ExactHull(CUBE), size, "point_a")
    assert_on_shape(contact.point_b, ExactHull(other), size, "point_b")
    # The lower bound is certain: B moved past it along any direction the pair can slide apart in is clear.
    pushed = other + (-contact.bounds[0] + 1e-9) * np.array([1.0, 0.0, 0.0])
    assert not core.intersect(CUBE, pushed, touch_tolerance=0.0)


def test_explicit_cap_still_works_and_none_means_automatic():
    other = CUBE + [0.9, 0.0, 0.0]
    assert core.collide(CUBE, other, max_iterations=1000).solver_status == "converged"
    assert core.collide(CUBE, other, max_iterations=None).solver_status == "converged"
